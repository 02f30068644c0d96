"""nonzero of a 3-d mask: its (n, 3) output planned column-major."""

import torch


def program(x):
    return (torch.nonzero(x < 0),)


def calls():
    return [(torch.tensor([[[1.0, -1.0], [-2.0, 3.0]], [[-4.0, 5.0], [6.0, -7.0]]]),)]


LANES = ("exir",)
