"""In-place ops on intermediates and on inputs (`add_`, `mul_`, `copy_`).

The result is the mutated tensor itself, so it aliases its operand; when the operand is
a program input (or a view of one), the caller sees the mutation. The target must be
writable (not an expanded view) and the source must broadcast *into* its exact shape at
every call.
"""

from __future__ import annotations

from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    pairs,
    unary,
)


def _writable(t, syms):
    return t.writable and t.dtype == "float32"


def _into(target, source, syms):
    return (
        _writable(target, syms)
        and source.dtype == "float32"
        and broadcast_shape(target.shape, source.shape, syms) == target.shape
    )


def _same_as_target(types, syms, pick):
    t = types[0]
    decisions = broadcast_decisions(t.shape, types[1].shape, syms) if len(types) > 1 else ()
    return Built({}, (TensorType(t.shape, t.dtype, t.writable),), decisions)


OPS = (
    OpSpec("add_", "inplace", "{out} = {0}.add_({1})", pairs(_into), _same_as_target),
    OpSpec("copy_", "inplace", "{out} = {0}.copy_({1} * 2.0)", pairs(_into), _same_as_target),
    OpSpec("mul_", "inplace", "{out} = {0}.mul_(1.5)", unary(_writable), _same_as_target),
)
