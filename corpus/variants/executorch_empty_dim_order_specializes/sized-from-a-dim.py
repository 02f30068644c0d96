"""A new_empty sized from one dynamic dim (plus one), filled: as the generator's
new_empty_fill draws it; the rest of the program is static but for that dim.
"""

import torch


def program(x):
    return (x.new_empty((x.shape[0] + 1, 2)).fill_(1.5), x.sum(1))


def calls():
    return [(torch.randn(3, 4),), (torch.randn(5, 4),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
