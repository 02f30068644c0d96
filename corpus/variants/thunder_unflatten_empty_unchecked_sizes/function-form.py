"""The function form, at dim 0, of an intermediate that is empty at the second call only
(the first call's sizes divide: both agree there).
"""

import torch


def program(x, y):
    return (torch.unflatten(x * 2.0, 0, (2, 2)), y + 1)


def calls():
    return [(torch.randn(4, 3), torch.randn(2)), (torch.randn(3, 0), torch.randn(2))]


LANES = ("thunder",)
