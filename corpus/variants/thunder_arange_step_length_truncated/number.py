"""arange's length traced one short: an int number input as the end, a `>` decision."""

import torch


def program(x, n):
    idx = torch.arange(0, n, 2)
    if idx.shape[0] > 2:
        return (x[:1] * 2.0,)
    return (x[:1] + idx.sum(),)


def calls():
    return [(torch.randn(4), 5)]


LANES = ("thunder",)
