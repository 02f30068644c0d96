"""An in-place op on repeat_interleave's result writes through to the caller's input."""

import torch


def program(x):
    y = x.repeat_interleave(1, dim=1)
    y.mul_(2.0)
    return (y + 1.0,)


def calls():
    return [(torch.randn(3, 2),)]


LANES = ("thunder",)
