"""A to_edge or export bug in a program the runtime has no kernel for (a stable sort): the
lane compares the edge program's result instead (exir.edge-result), which the case's
MATCHES must recognise too (a form named no-kernel*). Here: a tensor_split of a sort,
whose second piece is empty at the example.
"""

import torch


def program(x):
    a, b = torch.tensor_split(torch.sort(x, dim=1, stable=True).values, (2,), 0)
    return (a, b)


def calls():
    return [(torch.randn(2, 1),), (torch.randn(3, 1),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
