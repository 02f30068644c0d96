"""A number added to a channels-last tensor that came in as an input (the clone is
`.to(memory_format=...)` and the op is add)."""

import torch


def program(x):
    y = x.to(memory_format=torch.channels_last)
    return (y + 1.5,)


def calls():
    return [(torch.randn(1, 2, 3, 3),)]


LANES = ("exir",)
