"""A to_edge or export bug in a program the runtime has no kernel for (a stable sort): the
lane compares the edge program's result instead (exir.edge-result), which the case's
MATCHES must recognise too (a form named no-kernel*). Here: a float64 sort minus a
Python float.
"""

import torch


def program(x):
    return (torch.sort(x, stable=True).values - 10.1,)


def calls():
    return [(torch.tensor([10.1, 10.1], dtype=torch.float64),)]


LANES = ("exir",)
