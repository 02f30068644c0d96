"""A float64 sum over one dim of a float32 input cast in the program."""

import torch


def program(x):
    return ((x.double() * 1e8).sum(dim=0),)


def calls():
    return [(torch.tensor([1.0, 1e-8, -1.0]),)]


LANES = ("exir",)
