"""roll without dims (it rolls the flattened tensor: numel is the size), int64."""

import torch


def program(x):
    return (torch.roll(x.abs(), 5) * 2,)


def calls():
    return [(torch.tensor([[1, -2, 3], [4, 5, -6]]),), (torch.tensor([[1, 2], [3, 4]]),)]


DIMS = {"x": {1: (2, 4)}}
LANES = ("exir",)
