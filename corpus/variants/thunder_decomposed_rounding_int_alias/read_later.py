"""The in-place write goes into `round(neg(x))`, which is `neg(x)` itself, and a later op
reads `neg(x)` (the 2026-12-07 fault-bench night's program, seed 2)."""

import torch


def program(x):
    v1 = torch.neg(x)
    v2 = torch.round(v1)
    v2.add_(v2)
    return (torch.any(v2, dim=-1, keepdim=True), torch.cat([v1, v1], dim=0))


def calls():
    return [(torch.randint(-4, 5, (2,)),)]


LANES = ("thunderprims",)
