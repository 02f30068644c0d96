"""nonzero of a 1-d mask, (n, 1) planned column-major, then an op that checks dim orders:
the form a fixes-on nightly met (the corpus case squeezes instead).
"""

import torch


def program(x, n):
    return (torch.nonzero(torch.relu(x) > 0) * n,)


def calls():
    return [(torch.tensor([1.0, -2.0, 3.0]), 0)]


LANES = ("exir",)
