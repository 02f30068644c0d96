"""index_select on a dim that is empty in an intermediate (a split piece), not an input."""

import torch


def program(x):
    a, b = torch.split(x, [2, 0], 1)
    return (torch.index_select(b, 1, torch.arange(b.shape[1]).flip(0)), a + 1.0)


def calls():
    return [(torch.randn(3, 2),)]


LANES = ("thunder",)
