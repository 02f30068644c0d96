"""A to_edge or export bug in a program the runtime has no kernel for (a stable sort): the
lane compares the edge program's result instead (exir.edge-result), which the case's
MATCHES must recognise too (a form named no-kernel*). Here: a bfloat16 0-dim input plus
a Python float, beside a sort.
"""

import torch


def program(x, y):
    return (x + 0.5, torch.sort(y, stable=True).values)


def calls():
    return [(torch.tensor(1.25, dtype=torch.bfloat16), torch.randn(4))]


LANES = ("exir",)
