"""nonzero and masked_select results as the operand, with a second static operand."""

import torch


def program(x):
    idx = torch.nonzero(x > 0).flatten()
    vals = torch.masked_select(x, x > 0)
    return torch.cond(
        x.sum() > 0, lambda i, v: (i * 2, v.abs()), lambda i, v: (i + 1, -v), (idx, vals)
    )


def calls():
    return [(torch.tensor([1.0, -2.0, 3.0]),)]


LANES = ("exir",)
