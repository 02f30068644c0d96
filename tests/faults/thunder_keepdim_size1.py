"""Fault: Thunder's reductions keep a reduced dim of size 1 whatever `keepdim` says.

Where: `thunder.torch._reduction` (the shared decomposition of `sum`, `mean`, `amax`,
`amin`, `prod`, `var`... into a prim plus an optional `broadcast_in_dim`).

What: when every reduced dim has size 1, the reduction is computed as if
`keepdim=True`: `x.sum(dim=1)` of a `(3, 1)` tensor gives `(3, 1)` instead of `(3,)`.
The values are right; the shape (and everything broadcast against it later) is not
(`thunder.wrong-result`, or `thunder.crash` when a later op rejects the shape).

Why realistic: "reducing a size-1 dim changes nothing" is a natural fast path, and
forgetting that `keepdim=False` still drops the dim is the kind of corner such a path
misses; programs whose reduced dims are never 1 never notice.
"""

from __future__ import annotations

import thunder.torch as ltorch

from fixes._patching import Patch
from tests.faults import THUNDER, fault

_original = ltorch._reduction


def _reduction(a, prim, *, dims=None, keepdims=False, **kwargs):
    if not keepdims and a.ndim > 0:
        picked = dims
        if isinstance(picked, int) or not isinstance(picked, (tuple, list, type(None))):
            picked = (picked,)
        if picked is not None and len(picked):
            reduced = ltorch._reduction_dims(a.shape, tuple(picked))
            if all(a.shape[d] == 1 for d in reduced):  # faulty fast path
                keepdims = True
    return _original(a, prim, dims=dims, keepdims=keepdims, **kwargs)


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(ltorch, "_reduction", _reduction))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
