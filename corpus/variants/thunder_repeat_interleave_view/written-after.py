"""A write to the input after repeat_interleave (a size-1 dim repeated, through a narrow
view) shows in the returned result: a wrong value next to the aliasing.
"""

import torch


def program(x, w):
    y = x.repeat_interleave(2, dim=1)
    x.narrow(0, 0, 1).mul_(w)
    return (w + 1.0, y)


def calls():
    return [(torch.randn(3, 1), torch.randn(1))]


LANES = ("thunder",)
