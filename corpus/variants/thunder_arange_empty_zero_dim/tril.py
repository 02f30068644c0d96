"""arange(0) traced as 0-d, met by Thunder's own tril on an empty last dim."""

import torch


def program(x):
    return (torch.tril(x * 2.0, 1),)


def calls():
    return [(torch.randn(2, 3, 0),)]


LANES = ("thunder",)
