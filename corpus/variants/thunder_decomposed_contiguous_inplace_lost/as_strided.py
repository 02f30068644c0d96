"""The write goes through a strided view of `x.contiguous()`, and the lost update shows
in a later op on `x` (the 2026-12-07 fault-bench night's program, shrunk by hand)."""

import torch


def program(x):
    v = x.contiguous().as_strided(((x.numel() + 1) // 2,), (2,))
    v.add_(v)
    return (torch.exp(x.clamp(max=10.0)),)


def calls():
    return [(torch.randn(4),), (torch.randn(6),)]


LANES = ("thunderprims",)
