"""A row of an outer-product einsum next to a flattened contiguous copy of it."""

import torch


def program(x):
    v = torch.einsum("i,j->ij", x, x)
    return (v[0], v.contiguous().view(-1))


def calls():
    return [(torch.randn(3),)]


LANES = ("thunder",)
