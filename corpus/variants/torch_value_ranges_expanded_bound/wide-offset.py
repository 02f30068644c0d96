"""A wider offset and an op after the slice: 31 planned for 25."""

import torch

import fuzz.custom_ops  # noqa: F401


def program(x):
    return (torch.ops.fuzz.positive(x[:, 2:] * 2),)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(4, 6),)]


DIMS = {"x": {0: (2, 5), 1: (3, 7)}}
LANES = ("exir",)
