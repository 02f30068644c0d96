"""The 0-dim tensor is a full reduction's result, times a Python float (not in place)."""

import torch


def program(x):
    return (x.sum(0) * 2.0,)


def calls():
    return [(torch.tensor([0.5, -1.25, 2.0], dtype=torch.float16),)]


LANES = ("exir",)
