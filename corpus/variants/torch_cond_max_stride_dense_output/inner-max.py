"""The Max(1, ...) in a later stride of a rank-3 branch value (a topk over the last dim, k
= size // 2), as a fault-benchmark baseline night found it.
"""

import torch


def program(x):
    v, _ = torch.topk(x, x.shape[2] // 2, dim=2)
    return (torch.cond(v.shape[1] > 5, lambda a: a * 2.0, lambda a: a + 1.0, (v,)),)


def calls():
    return [(torch.randn(2, 7, 4),), (torch.randn(3, 6, 6),)]


LANES = ("exir",)
