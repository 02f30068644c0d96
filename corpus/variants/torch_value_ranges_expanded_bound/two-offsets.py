"""Both dims sliced: (s0 - 1)*(s1 - 1) multiplied out, 31 planned for 24."""

import torch

import fuzz.custom_ops  # noqa: F401


def program(x):
    return (torch.ops.fuzz.positive(x[1:, 1:]),)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(4, 6),)]


DIMS = {"x": {0: (2, 5), 1: (3, 7)}}
LANES = ("exir",)
