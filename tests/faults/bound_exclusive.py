"""Fault: ExecuTorch's upper-bound evaluation reads a value range as half-open.

Where: `executorch.exir.passes.sym_shape_eval_pass.eval_upper_bound` (the name
`ConstraintBasedSymShapeEvalPass` calls; the original lives in `executorch.exir.sym_util`).

What: a symbolic size's planned upper bound is `ValueRanges.upper - 1` instead of
`upper`: the ranges torch.export derives are inclusive (`Dim("n", max=8)` allows 8), so
every dynamic dimension is planned one row short and the largest allowed input writes
past its buffer. Plain ints (static sizes) and unbounded sizes are left alone.

Why realistic: Python ranges are half-open, sympy/torch value ranges are closed; mixing
the two conventions is a classic off-by-one, and nothing fails until a call reaches the
declared maximum (`exir.under-allocation`).
"""

from __future__ import annotations

from executorch.exir.passes import sym_shape_eval_pass as ssep

from fixes._patching import Patch
from tests.faults import EXECUTORCH, fault

_original = ssep.eval_upper_bound


def eval_upper_bound(maybe_symint):
    value = _original(maybe_symint)
    if isinstance(maybe_symint, int) or not isinstance(value, int):
        return value
    if maybe_symint.node.expr.is_number:
        return value  # a constant SymInt: no range to misread
    return max(value - 1, 0)  # faulty: the inclusive upper end taken as exclusive


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(ssep, "eval_upper_bound", eval_upper_bound))
    return table


PATCHES = fault(__name__, _table, EXECUTORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
