"""Two conds with other branch ops: the first cond's result is overwritten."""

import torch


def program(x):
    a = torch.cond(x.mean() > 0, lambda x: x.neg(), lambda x: x.abs(), (x,))
    b = torch.cond(x.mean() > 0, lambda x: x + 100.0, lambda x: x - 100.0, (x,))
    return (a, b)


def calls():
    return [(torch.tensor([1.0, 2.0, 3.0, 4.0]),)]


LANES = ("exir",)
