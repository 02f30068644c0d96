"""Reductions (sum/mean/amax over a dim, keepdim), matmul, cat and stack.

sum takes every dtype (bool and int64 sum to int64) and empty dims (the sum of nothing
is 0); mean takes floats and amax numbers, and neither reduces a dim that may be empty
at some call (nan / an error in eager). matmul needs one float dtype for
both operands; cat and stack promote.
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import Built, OpSpec, TensorType, float_typed, pairs, unary


def _reduce(name, template, takes, empty_ok, result=lambda d: d, never_empty=False):
    # mean/amax of an empty dim are nan/an error in eager: only reduce dims that are
    # never empty, unless the reduction is defined on empty input (sum). `never_empty`:
    # the whole operand must be non-empty at every call.
    def dims(t, syms):
        return [i for i, d in enumerate(t.shape) if empty_ok or syms.at_least_one(d)]

    def accept(t, syms):
        whole = not never_empty or all(syms.at_least_one(d) for d in t.shape)
        return t.dtype in takes and bool(dims(t, syms)) and whole

    def build(types, syms, pick):
        (t,) = types
        dim, keepdim = pick.pick(dims(t, syms)), pick.flag()
        if keepdim:
            shape = t.shape[:dim] + (sympy.Integer(1),) + t.shape[dim + 1 :]
        else:
            shape = t.shape[:dim] + t.shape[dim + 1 :]
        return Built({"dim": dim, "keepdim": keepdim}, (TensorType(shape, result(t.dtype)),))

    return OpSpec(name, "reduction", template, unary(accept), build)


def _sum_dtype(dtype):
    return dtype if dtypes.is_float(dtype) else "int64"


def _matmul_ok(a, b, syms):
    return (
        float_typed(a, syms)
        and a.dtype == b.dtype
        and a.rank == 2
        and b.rank == 2
        and a.shape[1] == b.shape[0]
    )


def _matmul(types, syms, pick):
    a, b = types
    return Built({}, (TensorType((a.shape[0], b.shape[1]), a.dtype),))


def _gram(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType(t.shape[:-1] + (t.shape[-2],), t.dtype),))


def _same_shape(a, b, syms):
    return a.rank >= 1 and a.shape == b.shape


def _cat(types, syms, pick):
    a, b = types
    dim = pick.index(a.rank)
    shape = a.shape[:dim] + (a.shape[dim] + b.shape[dim],) + a.shape[dim + 1 :]
    return Built({"dim": dim}, (TensorType(shape, dtypes.promote(a.dtype, b.dtype)),))


def _stack(types, syms, pick):
    a, b = types
    dim = pick.index(a.rank + 1)
    shape = a.shape[:dim] + (sympy.Integer(2),) + a.shape[dim:]
    return Built({"dim": dim}, (TensorType(shape, dtypes.promote(a.dtype, b.dtype)),))


OPS = (
    _reduce(
        "sum",
        "{out} = {0}.sum(dim={dim}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_sum_dtype,
    ),
    _reduce(
        "mean", "{out} = {0}.mean(dim={dim}, keepdim={keepdim})", dtypes.FLOATS, empty_ok=False
    ),
    _reduce(
        "amax",
        "{out} = torch.amax({0}, dim={dim}, keepdim={keepdim})",
        dtypes.NUMERIC,
        empty_ok=False,
        # ExecuTorch 1.5.1's amax aborts the whole process on an empty operand (even with
        # the reduced dim non-empty): registered as corpus/executorch_amax_empty_abort.py.
        # Keeping amax to operands that are never empty stops that one bug from killing
        # worker after worker; sum and mean still meet empty operands.
        never_empty=True,
    ),
    OpSpec("matmul", "matmul", "{out} = torch.matmul({0}, {1})", pairs(_matmul_ok), _matmul),
    OpSpec(
        "gram",
        "matmul",
        "{out} = {0} @ {0}.transpose(-2, -1)",
        unary(lambda t, s: float_typed(t, s) and t.rank >= 2),
        _gram,
    ),
    OpSpec("cat", "concat", "{out} = torch.cat([{0}, {1}], dim={dim})", pairs(_same_shape), _cat),
    OpSpec(
        "stack", "concat", "{out} = torch.stack([{0}, {1}], dim={dim})", pairs(_same_shape), _stack
    ),
)
