"""Fault: torch's `floor_divide` decomposition rounds toward zero (the pre-1.13 meaning).

Where: `torch._decomp.decomposition_table[aten.floor_divide.default]` (the decomposition
that `to_edge`'s `run_decompositions` uses to lower `a // b`, `torch.floor_divide` and
`Tensor.floor_divide` to the core ATen `div.Tensor_mode`).

What: the decomposition lowers `floor_divide` to `div(a, b, rounding_mode="trunc")`
instead of `rounding_mode="floor"`. The two agree whenever the quotient is exact or
non-negative; when the operands have different signs and the division is inexact, the
edge program rounds toward zero: `-7 // 2` is -3 instead of -4, `7.5 // -2` is -3.0
instead of -4.0. The edge program, the plan and the runtime agree with each other;
only eager disagrees (`exir.runtime-result`). `torch.div(..., rounding_mode="floor")` is
core ATen already and is not decomposed, so it stays right.

Why realistic: `torch.floor_divide` did truncate until PyTorch 1.13 (its docs said
so), so a lowering written from old documentation or ported from an older stack makes
exactly this mistake, and it only shows on mixed-sign, inexact divisions.
"""

from __future__ import annotations

import torch
from torch._decomp import decomposition_table

from fixes._patching import Patch
from tests.faults import TORCH, fault

_KEY = torch.ops.aten.floor_divide.default


def _floor_divide(self, other):
    return torch.div(self, other, rounding_mode="trunc")  # faulty: the pre-1.13 rounding


_original = decomposition_table[_KEY]


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(decomposition_table, _KEY, _floor_divide, item=True))
    return table


PATCHES = fault(__name__, _table, TORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
