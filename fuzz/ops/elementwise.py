"""Elementwise ops: unary, and binary with broadcasting (size-1 dims, rank differences).

Each op states the dtypes it takes and the dtype it returns (torch's promotion rules,
fuzz/ops/dtypes.py): `sin` of an int64 tensor is float32, `x * 0.5 + 1.0` of a bool
tensor is float32, `int64 + float16` is float16, and `neg`/`sub` refuse bool.
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.math import binary_op, to_float, unary_op


def _unary(name, template, takes, result=lambda d: d):
    return unary_op(name, "elementwise", template, takes, result)


def _binary(name, template, takes=dtypes.ALL):
    return binary_op(name, "broadcast", template, takes)


OPS = (
    _unary("neg", "{out} = torch.neg({0})", dtypes.NUMERIC),
    _unary("abs", "{out} = torch.abs({0})", dtypes.NUMERIC),
    _unary("sin", "{out} = torch.sin({0})", dtypes.NUMERIC, to_float),
    _unary("exp", "{out} = torch.exp({0}.clamp(max=10.0))", dtypes.NUMERIC, to_float),
    _unary("relu", "{out} = torch.relu({0})", dtypes.NUMERIC),
    _unary("scale", "{out} = {0} * 0.5 + 1.0", dtypes.ALL, to_float),
    _binary("add", "{out} = {0} + {1}"),
    _binary("sub", "{out} = torch.sub({0}, {1})", dtypes.NUMERIC),
    _binary("mul", "{out} = {0} * {1}"),
    _binary("maximum", "{out} = torch.maximum({0}, {1})"),
    _binary("where", "{out} = torch.where({0} > 0, {0}, {1})"),
)
