"""The program the campaign found (issue #19): roll of the second piece of a tensor_split,
on its dynamic dim 1, float16.
"""

import torch


def program(x1):
    v6, v7 = torch.tensor_split(x1, (0,), 0)
    return (torch.roll(v7, 3, 1),)


def calls():
    return [(torch.randn(3, 4).half(),), (torch.randn(2, 2).half(),)]


LANES = ("exir",)
