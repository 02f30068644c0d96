"""triu of a (2, 0, 3) tensor where Thunder's decomposition runs: its mask is built from
`arange` of the empty dim, and torch raises "expand(torch.LongTensor{[1, 0]}, size=[1]):
the number of sizes provided (1) must be greater or equal to the number of dimensions in
the tensor (2)". Patching `_iota_meta` to `(length,)` makes it run (checked 2026-12-07).
A 2026-12-07 fault-bench night's program (seed 3)."""

import torch


def program(x):
    return (torch.triu(x, 1),)


def calls():
    return [(torch.randn(2, 0, 3),)]


LANES = ("thunderprims",)
