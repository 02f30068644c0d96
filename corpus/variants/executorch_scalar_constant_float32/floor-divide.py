"""Floor division by a number (floor_divide, div.Tensor_mode in the edge program)."""

import torch


def program(x):
    return (x.abs() // 10.1,)


def calls():
    return [(torch.tensor([[10.1, -20.2], [5.0, 0.0]], dtype=torch.float64),)]


LANES = ("exir",)
