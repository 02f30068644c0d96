"""Two returned views of one intermediate: an index and repeat_interleave's result."""

import torch


def program(x):
    v = x.abs()
    w = v.repeat_interleave(1, dim=0)
    return (v[0], w)


def calls():
    return [(torch.randn(3, 2),), (torch.randn(4, 2),)]


LANES = ("thunder",)
