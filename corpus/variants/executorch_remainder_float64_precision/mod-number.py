"""The Scalar overload through `%` with a number, the dividend made in the program."""

import torch


def program(x):
    return ((x + x) % 1e8,)


def calls():
    return [(torch.tensor([-49999999.85, 3.0], dtype=torch.float64),)]


LANES = ("exir",)
