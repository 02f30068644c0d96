"""An einsum over both dims of a dynamic input: its decomposition unsqueezes `x` on the
trailing dim."""

import torch


def program(x):
    return (torch.einsum("ij,kj->ik", x, x),)


def calls():
    return [(torch.randn(5, 2),), (torch.randn(3, 3),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (3, 8), 1: (2, 3)}}
