"""A to_edge or export bug in a program the runtime has no kernel for (a stable sort): the
lane compares the edge program's result instead (exir.edge-result), which the case's
MATCHES must recognise too (a form named no-kernel*). Here: the eval dropout's result
written in place from a sort.
"""

import torch
import torch.nn.functional as F


def program(x, y):
    v = F.dropout(x, p=0.0, training=False)
    v.copy_(torch.sort(y, dim=0, stable=True).values * 2.0)
    return (v + 1,)


def calls():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4))]


LANES = ("exir",)
