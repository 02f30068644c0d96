"""Elementwise ops: unary, and binary with broadcasting (size-1 dims, rank differences).

Each op states the dtypes it takes and the dtype it returns (torch's promotion rules,
fuzz/ops/dtypes.py): `sin` of an int64 tensor is float32, `x * 0.5 + 1.0` of a bool
tensor is float32, `int64 + float16` is float16, and `neg`/`sub` refuse bool.
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    pairs,
    typed,
    unary,
)


def _unary(name, template, takes, result=lambda d: d):
    def build(types, syms, pick):
        (t,) = types
        return Built({}, (TensorType(t.shape, result(t.dtype)),))

    return OpSpec(name, "elementwise", template, unary(typed(*takes)), build)


def _to_float(dtype):
    return dtypes.with_scalar(dtype, "float")


def _broadcastable(takes):
    allowed = frozenset(takes)

    def accept(a, b, syms):
        return (
            a.dtype in allowed
            and b.dtype in allowed
            and broadcast_shape(a.shape, b.shape, syms) is not None
        )

    return accept


def _binary_build(types, syms, pick):
    a, b = types
    shape = broadcast_shape(a.shape, b.shape, syms)
    dtype = dtypes.promote(a.dtype, b.dtype)
    return Built({}, (TensorType(shape, dtype),), broadcast_decisions(a.shape, b.shape, syms))


def _binary(name, template, takes=dtypes.ALL):
    return OpSpec(name, "broadcast", template, pairs(_broadcastable(takes)), _binary_build)


OPS = (
    _unary("neg", "{out} = torch.neg({0})", dtypes.NUMERIC),
    _unary("abs", "{out} = torch.abs({0})", dtypes.NUMERIC),
    _unary("sin", "{out} = torch.sin({0})", dtypes.NUMERIC, _to_float),
    _unary("exp", "{out} = torch.exp({0}.clamp(max=10.0))", dtypes.NUMERIC, _to_float),
    _unary("relu", "{out} = torch.relu({0})", dtypes.NUMERIC),
    _unary("scale", "{out} = {0} * 0.5 + 1.0", dtypes.ALL, _to_float),
    _binary("add", "{out} = {0} + {1}"),
    _binary("sub", "{out} = torch.sub({0}, {1})", dtypes.NUMERIC),
    _binary("mul", "{out} = {0} * {1}"),
    _binary("maximum", "{out} = torch.maximum({0}, {1})"),
    _binary("where", "{out} = torch.where({0} > 0, {0}, {1})"),
)
