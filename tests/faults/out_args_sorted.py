"""Fault: ExecuTorch passes a multi-output kernel its out buffers in name order.

Where: `executorch.exir.operator.convert.get_out_args_from_schema` (ToOutVarPass: which
`out=` argument of a kernel each planned output buffer is passed as).

What: a functional op becomes its out variant in to_executorch, and the planned buffer
of its i-th output must be passed as the i-th out argument of the out schema. The
faulty helper returns the out arguments' names sorted (`tuple(sorted(...))`): kernels
with one output are unaffected, but `topk.values(..., values, indices)`, `max.dim_max`,
`sort.values`, `var_mean.correction_out` and their kin get their buffers swapped. The
runtime kernel then writes its indices into the values' buffer and the other way round:
a dtype check fails inside the call, or the values come back wrong. The edge program is
right: the fault is below it.

Why realistic: sorting names for a stable cache key is a common tidy-up, and every
single-output kernel (most of them) still works.
"""

from __future__ import annotations

from executorch.exir.operator import convert

from fixes._patching import Patch
from tests.faults import fault


def get_out_args_from_schema(out_var_schema):
    assert out_var_schema.is_out_fn(), f"Expect an out variant, but get: {out_var_schema}"
    return tuple(sorted(arg.name for arg in out_var_schema.arguments.out))  # faulty: sorted


def _table() -> list[Patch]:
    return [Patch.set(convert, "get_out_args_from_schema", get_out_args_from_schema)]


PATCHES = fault(__name__, _table, {"executorch": ">=1.5.1"})  # convert.py as 1.5.1 has it
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
