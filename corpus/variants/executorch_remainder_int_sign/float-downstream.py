"""A wrong integer remainder feeding float ops: a float result that differs with a
tolerance (the form of a fault-benchmark baseline night's finding, reduced).
"""

import torch


def program(x):
    return (torch.rsqrt(torch.remainder(x, 3).abs() + 1),)


def calls():
    return [(torch.tensor([-4, 3, -2, 5]),)]


LANES = ("exir",)
