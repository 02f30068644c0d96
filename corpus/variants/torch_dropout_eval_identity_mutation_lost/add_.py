"""Another in-place op through the eval dropout, with a nonzero p."""

import torch
import torch.nn.functional as F


def program(x):
    v = F.dropout(x, p=0.3, training=False)
    v.add_(1.0)
    return (v.sum(0),)


def calls():
    return [(torch.randn(3, 2),)]


LANES = ("exir",)
