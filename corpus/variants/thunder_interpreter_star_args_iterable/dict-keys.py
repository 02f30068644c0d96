"""The star argument is a dict's keys view."""

import torch


def program(x):
    return (x * max(*{2: 0, 3: 1}.keys()),)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunder",)
