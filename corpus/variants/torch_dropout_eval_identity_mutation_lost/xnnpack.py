"""Through the XNNPACK delegate: the exported program's copy is what the delegate adds to,
so the outputs read through the dropout differ from eager's (matches_eager_with
"dropout-eval-copy"; the XNNPACK lane's 1,000-program campaign, 2026-12-07, seed 2026,
before the lane passed the program to the eager emulations)."""

import torch
import torch.nn.functional as F


def program(x):
    v = F.dropout(x, p=0.9, training=False)
    v.add_(torch.tanh(x))
    return (x * 2.0,)


def calls():
    return [(torch.randn(6, 3),), (torch.randn(4, 3),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (2, 8)}}
