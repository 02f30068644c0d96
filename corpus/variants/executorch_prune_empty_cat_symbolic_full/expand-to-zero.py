"""The empty tensor made inside the program: an expand to a number input that is 0, then a
cat (the tenth session's fault-benchmark night, filed as new while the pattern asked for
an empty input).
"""

import torch


def program(x0, x1):
    v = x0.unsqueeze(0).expand(x1, *x0.shape)
    return (torch.cat([v, v], dim=1),)


def calls():
    return [(torch.randn(2, 4), 0)]


DIMS = {"x0": {0: (2, 3)}}
LANES = ("exir",)
