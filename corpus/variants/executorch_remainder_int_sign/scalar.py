"""The Scalar overload: `torch.remainder` of an int32 tensor by a negative number."""

import torch


def program(x):
    return (x * 2, torch.remainder(x, -3))


def calls():
    return [(torch.tensor([[1, -1], [4, 7]], dtype=torch.int32),)]


LANES = ("exir",)
