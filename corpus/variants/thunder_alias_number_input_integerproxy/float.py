"""A float number, reached by an unused first input before two disjoint views written in
place (the alias positions "1,2" land on the float n): 'FloatProxy' has no shape.
"""

import torch


def program(x0, x1, x2, n):
    x1.mul_(x2)
    return (x1 * n,)


def calls():
    base = torch.randn(10)
    return [(torch.ones(3), base[:5], base[5:], 3.0)]


LANES = ("thunder",)
