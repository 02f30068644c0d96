"""The generator's form: every other column (index_select), a branch on its count."""

import torch


def program(x):
    v = torch.index_select(x, 1, torch.arange(0, x.shape[1], 2))
    if v.shape[1] == 2:
        return (v * 10.0,)
    return (v + 1.0,)


def calls():
    return [(torch.randn(2, 5),)]


LANES = ("thunder",)
