"""torch.empty (not new_empty) sized from a dynamic dim, written with fill_. (empty_like is
not affected: it reaches the edge program as empty_like's own kernel.)
"""

import torch


def program(x):
    return (torch.empty((x.shape[0], 3)).fill_(2.0) + x.sum(1, keepdim=True),)


def calls():
    return [(torch.randn(2, 3),), (torch.randn(5, 3),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
