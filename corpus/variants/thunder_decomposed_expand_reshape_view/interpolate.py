"""Nearest interpolate of a width-1 input by a factor of 2, then an in-place mul (the
lane's first 1,000-program campaign, 2026-12-07, seed 2026, reduced by hand)."""

import torch
import torch.nn.functional as F


def program(x):
    v = F.interpolate(x, size=(x.shape[-1] * 2,), mode="nearest")
    return (v.mul_(1.5),)


def calls():
    return [(torch.randn(2, 1, 1),)]


LANES = ("thunderprims",)
