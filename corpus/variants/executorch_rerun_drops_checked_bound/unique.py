"""unique of an int64 tensor with a checked length: the re-run plans sys.maxsize elements."""

import torch


def program(x):
    v = torch.unique(x.long())
    torch._check(v.shape[0] <= x.shape[0])
    return (v * 2,)


def calls():
    return [(torch.randn(3),), (torch.randn(5),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
