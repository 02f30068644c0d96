"""In-place ops on intermediates and on inputs (`add_`, `mul_`, `copy_`).

The result is the mutated tensor itself, so it aliases its operand; when the operand is
a program input (or a view of one), the caller sees the mutation. The target must be
writable (not an expanded view) and the source must broadcast *into* its exact shape at
every call.
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    float_typed,
    pairs,
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


def _never_empty(*types, syms):
    return all(syms.at_least_one(d) for t in types for d in t.shape)


def _split(name, template, operands_of, accept):
    """Two ops for one in-place op: `name`, on operands that are never empty (both lanes),
    and `name` + "empty", on operands with a dim that may be empty at some call (EXIR
    only). Thunder 0.2.6 under symbolic values raises UnboundLocalError ("cannot access
    local variable 'i1'") on in-place updates of an input next to another input with an
    empty dim, and on in-place ops whose broadcast source is empty (corpus_new/
    thunder_inplace_empty_unbound.py); that would hide every other oracle on the program."""

    def safe(*types):
        *ts, syms = types
        return accept(*types) and _never_empty(*ts, syms=syms)

    def empty(*types):
        *ts, syms = types
        return accept(*types) and not _never_empty(*ts, syms=syms)

    return (
        OpSpec(name, "inplace", template, operands_of(safe), _same_as_target, aliases=True),
        OpSpec(
            f"{name}empty",
            "inplace",
            template,
            operands_of(empty),
            _same_as_target,
            EXIR_ONLY,
            aliases=True,
        ),
    )


EXIR_ONLY = frozenset({"exir"})


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
    *_split("add_", "{out} = {0}.add_({1})", _disjoint_pairs, _add_into),
    # copy_ casts to the target's dtype, whatever the source's.
    *_split("copy_", "{out} = {0}.copy_({1} * 2.0)", pairs, _fits),
    *_split(
        "mul_", "{out} = {0}.mul_(1.5)", unary, lambda t, s: _writable(t, s) and float_typed(t, s)
    ),
)
