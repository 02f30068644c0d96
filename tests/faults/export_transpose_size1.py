"""Fault: torch's `transpose` decomposition treats a swap with a size-1 dim as a no-op.

Where: `torch._decomp.decomposition_table[aten.transpose.int]` (the `torch._refs`
decomposition that `to_edge`'s `run_decompositions` uses to lower `transpose` to core
ATen `permute`).

What: when one of the two swapped dims is statically 1 the decomposition returns an
alias of the input instead of the permuted view. No element moves in memory, but the
shape does: `(1, n).transpose(0, 1)` must be `(n, 1)`; the faulty lowering keeps
`(1, n)`. The edge program, the plan and the runtime all agree with each other (the
meta is traced through the faulty decomposition), only eager disagrees
(`exir.runtime-result`, or `exir.crash` when a later op rejects the shape).

Why realistic: "transposing a size-1 dim moves no data" is true and tempting as a fast
path in a lowering; it only holds for the storage, not for the shape.
"""

from __future__ import annotations

import torch
from torch._decomp import decomposition_table
from torch.fx.experimental.symbolic_shapes import statically_known_true

from fixes._patching import Patch
from tests.faults import TORCH, fault

_aten = torch.ops.aten
_KEY = _aten.transpose.int


def _transpose(a, dim0, dim1):
    d0, d1 = (d % a.ndim if a.ndim else 0 for d in (dim0, dim1))
    if a.ndim >= 2 and d0 != d1:
        if statically_known_true(a.shape[d0] == 1) or statically_known_true(a.shape[d1] == 1):
            return _aten.alias.default(a)  # faulty fast path: the shape is not swapped
    return _original(a, dim0, dim1)


_original = decomposition_table[_KEY]


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(decomposition_table, _KEY, _transpose, item=True))
    return table


PATCHES = fault(__name__, _table, TORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
