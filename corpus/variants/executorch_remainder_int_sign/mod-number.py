"""The Scalar overload through `%` with a positive divisor and negative dividends."""

import torch


def program(x):
    return (x.sum(0) % 5,)


def calls():
    return [(torch.tensor([[-3, 2, -9], [1, -1, 0]]),)]


LANES = ("exir",)
