"""A float64 dividend made from a float32 input."""

import torch


def program(x):
    return (x.double() * 1e8 % 1e8,)


def calls():
    return [(torch.tensor([-0.9999999, 0.5]),)]


LANES = ("exir",)
