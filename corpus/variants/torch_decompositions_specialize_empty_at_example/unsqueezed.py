"""As the fixes-on campaign (seed 2026) found it: the piece split off a dim of size 1 added
in front, its second piece empty at the example.
"""

import torch


def program(x):
    return torch.tensor_split(x.unsqueeze(0), (2,), 1)


def calls():
    return [(torch.randn(2, 1),), (torch.randn(3, 1),)]


DIMS = {"x": {0: (2, 4)}}
LANES = ("exir",)
