"""The specialized size bounds a data-dependent one: the edge program's runtime assertion
`u0 <= 2` on the unique's length fails at 3 rows (a fault-benchmark night's program,
seed 4, 2026-12-05, the fault's op shrunk away).
"""

import torch


def program(x1):
    v7 = torch.unique(x1, sorted=True)
    torch._check(v7.shape[0] <= x1.numel())
    v8, v9 = torch.tensor_split(x1 + 1, (2,), 0)
    return (v7, v8, v9)


def calls():
    return [(torch.randn(2),), (torch.randn(3),)]


DIMS = {"x1": {0: (2, 6)}}
LANES = ("exir",)
