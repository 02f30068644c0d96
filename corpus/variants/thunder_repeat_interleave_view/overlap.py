"""An in-place op on a size-1 dim repeated: Thunder's expanded view refuses the write."""

import torch


def program(x):
    y = x.repeat_interleave(3, dim=1)
    y.add_(1.0)
    return (y * 2.0,)


def calls():
    return [(torch.randn(2, 1),)]


LANES = ("thunder",)
