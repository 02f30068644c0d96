"""`F.dropout(..., training=False)` is exported as `aten.dropout` and decomposed into the
same clone: a tensor returned with its eval-mode dropout fails the same way (the XNNPACK
lane's 1,000-program campaign, 2026-12-07, seed 2026: `v8 = F.dropout(v6, p=0.0,
training=False)` with `v6` also read by an `embedding` outside the partition)."""

import torch
import torch.nn.functional as F


def program(x):
    v = x * 0.5
    return (F.dropout(v, p=0.0, training=False), v)


def calls():
    return [(torch.randn(6, 2),), (torch.randn(3, 2),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (2, 8)}}
