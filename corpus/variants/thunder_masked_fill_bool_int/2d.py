"""masked_fill of a bool intermediate (a comparison) with an int value, 2-d."""

import torch


def program(x):
    return ((x > 0).masked_fill(x < -0.5, 1), x + 1.0)


def calls():
    return [(torch.tensor([[1.0, -1.0], [0.25, -0.25]]),)]


LANES = ("thunder",)
