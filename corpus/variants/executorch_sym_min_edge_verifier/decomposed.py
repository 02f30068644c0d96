"""The sym_min exists only once decomposed: a replicate pad of a diagonal (min(s0, s2)
long) indexes with a clamp sized by it (a fault-benchmark baseline, 2026-12-04).
"""

import torch
import torch.nn.functional as F


def program(x):
    d = torch.diagonal(x, 0, 0, 2)
    return (F.pad(d.unsqueeze(1), (2, 2), mode="replicate").squeeze(1) * 2.0,)


def calls():
    return [(torch.randn(3, 1, 4),), (torch.randn(5, 1, 2),)]


DIMS = {"x": {0: (2, 6), 2: (2, 6)}}
LANES = ("exir",)
