"""scatter_add into rows picked by an int32 remainder widened to an index."""

import torch


def program(x, w, v):
    return (w.scatter_add(1, torch.remainder(x, 3).long(), v),)


def calls():
    x = torch.tensor([[1, -1], [0, -2]], dtype=torch.int32)
    return [(x, torch.randn(2, 3), torch.randn(2, 2))]


LANES = ("exir",)
