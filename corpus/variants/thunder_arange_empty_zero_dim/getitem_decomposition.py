"""`x[arange(n)]` with n == 0 where Thunder's own decomposition of indexing runs (the
Thunder-decompositions lane; on CPU the torch executor otherwise runs `__getitem__`
whole): the decomposition reshapes the index, traced as a 0-d tensor (one element), to
shape [1], and torch raises "shape '[1]' is invalid for input of size 0". Patching
`_iota_meta` to `(length,)` makes it run (checked 2026-12-07). A 2026-12-07 fault-bench
night's program, shrunk by hand."""

import torch


def program(x, n):
    return (x[torch.remainder(torch.arange(n), x.shape[0])],)


def calls():
    return [(torch.randn(2), 0)]


LANES = ("thunderprims",)
