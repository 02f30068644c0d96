"""In-place ops on intermediates and on inputs (`add_`, `mul_`, `copy_`).

The result is the mutated tensor itself, so it aliases its operand; when the operand is
a program input (or a view of one), the caller sees the mutation. The target must be
writable (not an expanded view) and the source must broadcast *into* its exact shape at
every call.
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    EXIR_ONLY,
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    float_typed,
    pairs,
    tensors,
    unary,
)


def _writable(t, syms):
    return t.writable


def _fits(target, source, syms):
    return _writable(target, syms) and broadcast_shape(target.shape, source.shape, syms) == (
        target.shape
    )


def _add_into(target, source, syms):
    # add_ computes in the promoted dtype and must be able to write it back.
    return _fits(target, source, syms) and dtypes.can_cast(
        dtypes.promote(target.dtype, source.dtype), target.dtype
    )


def _same_as_target(types, syms, pick):
    t = types[0]
    decisions = broadcast_decisions(t.shape, types[1].shape, syms) if len(types) > 1 else ()
    return Built({}, (TensorType(t.shape, t.dtype, t.writable),), decisions)


def _may_be_empty(values, syms) -> bool:
    """Whether some tensor of the program so far (inputs included) may be empty at a call."""
    return any(not syms.at_least_one(d) for _, t in tensors(values) for d in t.shape)


def _split(name, template, operands):
    """Two ops for one in-place op: `name`, in programs none of whose tensors so far may be
    empty (both lanes), and `name` + "empty", in programs where one may be (EXIR only).
    Thunder 0.2.6 under symbolic values raises UnboundLocalError ("cannot access local
    variable 'i2'") on a program with an in-place op when two inputs have an empty dim,
    and on an in-place op whose broadcast source is empty (corpus_new/
    thunder_inplace_empty_unbound.py); that would hide every other oracle on the program."""

    def safe(values, syms):
        return [] if _may_be_empty(values, syms) else operands(values, syms)

    def empty(values, syms):
        return operands(values, syms) if _may_be_empty(values, syms) else []

    return (
        OpSpec(name, "inplace", template, safe, _same_as_target, aliases=True),
        OpSpec(
            f"{name}empty", "inplace", template, empty, _same_as_target, EXIR_ONLY, aliases=True
        ),
    )


def _disjoint_pairs(accept):
    """(target, source) pairs that do not share storage, or are the same value: eager
    rejects an in-place op whose source partially overlaps its target."""

    def operands(values, syms):
        return [
            (i, j)
            for i, j in pairs(accept)(values, syms)
            if i == j or values[i].root != values[j].root
        ]

    return operands


OPS = (
    *_split("add_", "{out} = {0}.add_({1})", _disjoint_pairs(_add_into)),
    # copy_ casts to the target's dtype, whatever the source's.
    *_split("copy_", "{out} = {0}.copy_({1} * 2.0)", pairs(_fits)),
    *_split(
        "mul_", "{out} = {0}.mul_(1.5)", unary(lambda t, s: _writable(t, s) and float_typed(t, s))
    ),
)
