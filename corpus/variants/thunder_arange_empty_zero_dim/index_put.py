"""index_put with an arange index on an empty dim."""

import torch


def program(x):
    return (x.index_put((torch.arange(x.shape[0]),), x - 1.0, accumulate=True),)


def calls():
    return [(torch.randn(0, 2, 2),)]


LANES = ("thunder",)
