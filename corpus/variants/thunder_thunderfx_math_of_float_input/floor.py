"""`math.floor` of the float argument: the `int()` form of the same failure."""

import math

import torch


def program(x, n):
    return (x * math.floor(n),)


def calls():
    return [(torch.randn(3), 2.5)]


LANES = ("thunderfx",)
