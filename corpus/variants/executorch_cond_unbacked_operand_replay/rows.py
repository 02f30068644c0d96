"""Rows picked by a mask (2-d, dynamic columns) fed to a cond on the backed size."""

import torch


def program(x):
    v = x[x.flatten(1).sum(1) > 0]
    return (torch.cond(v.shape[1] > 5, lambda t: t.abs(), lambda t: t * 2.0, (v,)),)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(3, 6),)]


DIMS = {"x": {1: (3, 7)}}
LANES = ("exir",)
