"""Views and shape ops: view/reshape, transpose/permute, expand, unsqueeze/squeeze,
slicing, select, narrow and basic indexing. Views share storage with their base, which
is what the aliasing oracles look at. Views take every dtype; those that need an element
(select, narrow, `[1:]`) only use dims that are never empty."""

from __future__ import annotations

import dataclasses

import sympy

from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    pairs,
    unary,
)

ONE = sympy.Integer(1)


def _view(t: TensorType, shape, writable=None) -> TensorType:
    return dataclasses.replace(
        t, shape=tuple(shape), writable=t.writable if writable is None else writable
    )


def _flatten(types, syms, pick):
    (t,) = types
    return Built({}, (_view(t, (t.numel(),)),))


def _merge_last(types, syms, pick):
    (t,) = types
    return Built({}, (_view(t, t.shape[:-2] + (t.shape[-2] * t.shape[-1],)),))


def _transpose(types, syms, pick):
    (t,) = types
    d0 = pick.index(t.rank)
    d1 = (d0 + 1 + pick.index(t.rank - 1)) % t.rank if t.rank > 1 else 0
    shape = list(t.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return Built({"d0": d0, "d1": d1}, (_view(t, shape),))


def _permute(types, syms, pick):
    (t,) = types
    perm = pick.sample(range(t.rank), t.rank)
    return Built({"perm": tuple(perm)}, (_view(t, [t.shape[p] for p in perm]),))


def _expand_lead(types, syms, pick):
    (t,) = types
    n = pick.integer(2, 3)
    return Built({"n": n}, (_view(t, (sympy.Integer(n),) + t.shape, writable=False),))


def _expand_as_ok(a, b, syms):
    # a expands to b's shape: broadcasting a with b must give exactly b's shape.
    return (
        a.dtype == b.dtype
        and a.rank <= b.rank
        and broadcast_shape(a.shape, b.shape, syms) == b.shape
        and a.shape != b.shape
    )


def _expand_as(types, syms, pick):
    a, b = types
    return Built(
        {}, (_view(a, b.shape, writable=False),), broadcast_decisions(a.shape, b.shape, syms)
    )


def _unsqueeze(types, syms, pick):
    (t,) = types
    dim = pick.index(t.rank + 1)
    return Built({"dim": dim}, (_view(t, t.shape[:dim] + (ONE,) + t.shape[dim:]),))


def _squeeze(types, syms, pick):
    (t,) = types
    ones = [i for i, d in enumerate(t.shape) if d == 1]
    dim = pick.pick(ones)
    return Built({"dim": dim}, (_view(t, t.shape[:dim] + t.shape[dim + 1 :]),))


def _sliceable(t, syms):
    return any(syms.at_least_one(d) for d in t.shape)


def _sliceable_dims(t, syms):
    return [i for i, d in enumerate(t.shape) if syms.at_least_one(d)]


def _mergeable(t, syms):
    # `view(*shape[:-2], -1)` of an empty tensor is ambiguous (an error) unless it is 1-D.
    return t.rank == 2 or (t.rank > 2 and all(syms.at_least_one(d) for d in t.shape))


def _slice_from_one(types, syms, pick):
    (t,) = types
    dim = pick.pick(_sliceable_dims(t, syms))
    shape = list(t.shape)
    shape[dim] = shape[dim] - 1
    return Built({"index": "[" + ":, " * dim + "1:]"}, (_view(t, shape),))


def _slice_step(types, syms, pick):
    (t,) = types
    dim = pick.index(t.rank)
    shape = list(t.shape)
    shape[dim] = sympy.ceiling(shape[dim] / 2)
    return Built({"index": "[" + ":, " * dim + "::2]"}, (_view(t, shape),))


def _select(types, syms, pick):
    (t,) = types
    dim = pick.pick([i for i, d in enumerate(t.shape) if syms.at_least_one(d)])
    return Built({"dim": dim}, (_view(t, t.shape[:dim] + t.shape[dim + 1 :]),))


def _narrow(types, syms, pick):
    (t,) = types
    dim = pick.pick(_sliceable_dims(t, syms))
    lo, _ = syms.range(t.shape[dim])
    length = pick.integer(1, lo)
    shape = list(t.shape)
    shape[dim] = sympy.Integer(length)
    return Built({"dim": dim, "length": length}, (_view(t, shape),))


def _index_none(types, syms, pick):
    (t,) = types
    return Built({}, (_view(t, (t.shape[0], ONE) + t.shape[1:]),))


def _rank(lo):
    return unary(lambda t, s: t.rank >= lo)


_OPS = (
    OpSpec("reshape_flat", "view", "{out} = {0}.reshape(-1)", _rank(1), _flatten),
    OpSpec(
        "view_merge",
        "view",
        "{out} = {0}.contiguous().view(*{0}.shape[:-2], -1)",
        unary(_mergeable),
        _merge_last,
    ),
    OpSpec("transpose", "view", "{out} = {0}.transpose({d0}, {d1})", _rank(1), _transpose),
    OpSpec("permute", "view", "{out} = {0}.permute(*{perm})", _rank(2), _permute),
    OpSpec(
        "expand_lead",
        "view",
        "{out} = {0}.unsqueeze(0).expand({n}, *{0}.shape)",
        _rank(0),
        _expand_lead,
    ),
    OpSpec(
        "expand_as", "broadcast", "{out} = {0}.expand_as({1})", pairs(_expand_as_ok), _expand_as
    ),
    OpSpec("unsqueeze", "view", "{out} = {0}.unsqueeze({dim})", _rank(0), _unsqueeze),
    OpSpec(
        "squeeze",
        "view",
        "{out} = {0}.squeeze({dim})",
        unary(lambda t, s: any(d == 1 for d in t.shape)),
        _squeeze,
    ),
    OpSpec("slice", "view", "{out} = {0}{index}", unary(_sliceable), _slice_from_one),
    OpSpec("slice_step", "view", "{out} = {0}{index}", _rank(1), _slice_step),
    OpSpec(
        "select",
        "view",
        "{out} = {0}.select({dim}, 0)",
        unary(lambda t, s: any(s.at_least_one(d) for d in t.shape)),
        _select,
    ),
    OpSpec("narrow", "view", "{out} = {0}.narrow({dim}, 0, {length})", unary(_sliceable), _narrow),
    OpSpec("index_none", "view", "{out} = {0}[:, None]", _rank(1), _index_none),
)

# Every view shares storage with its operand (reshape may copy: counted as sharing).
OPS = tuple(dataclasses.replace(op, aliases=True) for op in _OPS)
