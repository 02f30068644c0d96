"""An add and a softmax around the comparison whose nonzero count goes unused."""

import torch


def program(x):
    y = x + 1.0
    _n = torch.nonzero(y > 0).shape[0]  # computed, never used
    return (torch.softmax(y, -1),)


def calls():
    return [(torch.randn(3, 8),), (torch.randn(5, 8),)]


DIMS = {"x": {0: (1, 16)}}
LANES = ("xnnpack",)
