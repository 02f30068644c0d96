"""`math.log1p` of the float argument times an integer tensor (the night's program)."""

import math

import torch


def program(x, n):
    return (x * math.log1p(n),)


def calls():
    return [(torch.randint(-4, 5, (3, 3)), 2.0)]


LANES = ("thunderfx",)
