"""The square written out on a number derived from a size, not a gram matrix's numel."""

import torch


def program(x):
    n = x.shape[0] + 1
    return (x.new_ones(n**2) * 2.0, x.sum(0))


def calls():
    return [(torch.randn(3, 4),), (torch.randn(4, 4),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
