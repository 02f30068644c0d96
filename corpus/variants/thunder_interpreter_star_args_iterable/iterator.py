"""The star argument is an iterator over a tuple."""

import torch


def program(x):
    return (x * max(*iter((2, 3))),)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunder",)
