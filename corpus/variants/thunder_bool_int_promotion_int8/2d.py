"""A comparison's bool result plus a literal int, its dtype read by `.to`, 2-d."""

import torch


def program(x):
    v = (x > 0) + 2
    return (x.to(v.dtype), x * 2.0)


def calls():
    return [(torch.tensor([[1.0, -1.0], [0.25, -0.25]]),)]


LANES = ("thunder",)
