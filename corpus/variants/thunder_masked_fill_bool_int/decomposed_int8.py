"""Through Thunder's decomposition of masked_fill (the Thunder-decompositions lane) the
result is int8, the dtype the trace records for bool x int (the lane's first
1,000-program campaign, 2026-12-07, seed 2026)."""

import torch


def program(x, n):
    m = x != 1
    return (m.masked_fill(m, n),)


def calls():
    return [(torch.randn(3), 1)]


LANES = ("thunderprims",)
