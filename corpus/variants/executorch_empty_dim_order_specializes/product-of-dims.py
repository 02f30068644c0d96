"""A size of several dims (s1*s2 + 1): the guard replaces no symbol, only the op's own
output is static and a call of other sizes fails execute. The floor-division fault night
(seed 1) found it with a pow and two branches around it.
"""

import torch


def program(x):
    v = x.flatten(1, 2)
    return (v.new_empty((v.shape[1] + 1, 2)).fill_(1.5), v * 2.0)


def calls():
    return [(torch.randn(6, 3, 5),), (torch.randn(6, 2, 3),)]


DIMS = {"x": {1: (2, 3), 2: (3, 7)}}
LANES = ("exir",)
