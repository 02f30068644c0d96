"""Shape ops: F.pad (constant, reflect, replicate), repeat, tile, flip (one dim or
several), roll, split, chunk, tensor_split, unbind, tril/triu, diagonal, movedim, flatten
and unflatten.

Each form is valid at every call: reflect pads by less than the dim's smallest size and
replicate only non-empty dims (eager raises otherwise). The NUMBER of outputs of split,
chunk, tensor_split and unbind is part of the program, so it must not depend on a size:
split takes a size list summing to the dim (`[k, d - k]`), or half of a dim that is
twice a symbol; chunk(2) takes dims that are never 1 (a dim of 1 gives one piece, of 0
two empty ones); unbind takes dims of static size 1; tensor_split into n sections always
gives n pieces (some may be empty). Unflatten splits a dim whose size is a product: by a
static factor, or by another operand's non-empty dim that divides it symbolically.
"""

from __future__ import annotations

import dataclasses

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    EXIR_ONLY,
    F_IMPORT,
    THUNDER_ONLY,
    Built,
    OpSpec,
    TensorType,
    half,
    op,
    pairs,
    quotient,
    unary,
    with_numbers,
)


def _like(t: TensorType, shape) -> TensorType:
    return TensorType(tuple(shape), t.dtype)


def _replace(shape, dim, *sizes):
    return tuple(shape[:dim]) + tuple(sizes) + tuple(shape[dim + 1 :])


def _ranked(lo, takes=dtypes.ALL):
    return unary(lambda t, s: t.rank >= lo and t.dtype in takes)


# ---- pad ---------------------------------------------------------------------------------


def _pad_constant(types, syms, pick):
    """Pads of the last one or two dims, 0 to 2 on each side."""
    (t,) = types
    pad, shape = [], list(t.shape)
    for dim in range(t.rank - 1, t.rank - 1 - pick.integer(1, min(2, t.rank)), -1):
        left, right = pick.integer(0, 2), pick.integer(0, 2)
        pad += [left, right]
        shape[dim] = shape[dim] + left + right
    value = pick.pick(["0", "1"] if t.dtype in ("bool", "int64") else ["0.0", "-2.5"])
    return Built({"pad": tuple(pad), "value": value}, (_like(t, shape),))


# reflect/replicate pad a (C, W) or (N, C, W) input's last dim, or a (C, H, W) input's last
# two; the batch N may be empty, C, H and W may not (eager raises). Operands of rank 1 and
# 2 are padded as (1, W) and (N, 1, W) views: `[None]`/`.unsqueeze(1)` before, squeezed
# after. Reflect pads each side by less than the dim's smallest size.
_AS_PADDED = {1: ("{0}[None]", ".squeeze(0)"), 2: ("{0}.unsqueeze(1)", ".squeeze(1)")}


def _paddable(t, syms):
    inner = t.shape[1 if t.rank == 3 else t.rank - 1 :]
    return t.dtype in dtypes.NUMERIC and 1 <= t.rank <= 3 and all(map(syms.at_least_one, inner))


def _pad_sided(mode):
    def build(types, syms, pick):
        (t,) = types
        src, post = _AS_PADDED.get(t.rank, ("{0}", ""))
        two = t.rank == 3 and syms.at_least_one(t.shape[0]) and pick.flag()
        pad, shape = [], list(t.shape)
        for dim in (t.rank - 1, t.rank - 2)[: 1 + two]:
            top = 2 if mode == "replicate" else min(2, syms.range(t.shape[dim])[0] - 1)
            left, right = pick.integer(0, top), pick.integer(0, top)
            pad += [left, right]
            shape[dim] = shape[dim] + left + right
        attrs = {"src": src, "post": post, "pad": tuple(pad)}
        return Built(attrs, (_like(t, shape),))

    return build


# ---- repeat, tile, flip, roll ------------------------------------------------------------


def _repeat(types, syms, pick):
    (t,) = types
    extra = pick.integer(0, 1)
    reps = tuple(pick.integer(1, 3) for _ in range(t.rank + extra))
    shape = (sympy.Integer(1),) * extra + t.shape
    return Built({"reps": reps}, (_like(t, [d * r for d, r in zip(shape, reps)]),))


def _tile(types, syms, pick):
    (t,) = types
    reps = tuple(pick.integer(1, 3) for _ in range(pick.integer(1, t.rank)))
    full = (1,) * (t.rank - len(reps)) + reps
    return Built({"reps": reps}, (_like(t, [d * r for d, r in zip(t.shape, full)]),))


def _flip(types, syms, pick):
    (t,) = types  # one dim; several are flip_dims'
    return Built({"dims": (pick.index(t.rank),)}, (_like(t, t.shape),))


def _flip_dims(types, syms, pick):
    """Two to all dims of a rank >= 2 operand, in any order: a form of its own, as the
    reductions over several dims are (reductions_multi.py), so that its draws are spent
    where a lowering handles several dims at once. (Until 2026-12-04 `flip` flipped
    several dims at half its draws on rank >= 2 operands, and a third of its operands
    were rank 1: one flip in three or four was over several dims.)"""
    (t,) = types
    dims = tuple(pick.sample(range(t.rank), 2 + pick.index(t.rank - 1)))
    return Built({"dims": dims}, (_like(t, t.shape),))


def _roll(types, syms, pick):
    t = types[0]
    if len(types) == 2:
        return Built({"shift": "{1}", "dims": pick.index(t.rank)}, (_like(t, t.shape),))
    shift, dims = pick.pick([1, -1, 2, 5]), pick.pick([None, pick.index(t.rank)])
    return Built({"shift": shift, "dims": dims}, (_like(t, t.shape),))


# ---- split, chunk, tensor_split, unbind --------------------------------------------------


def _halvable(d, syms):
    """A dim that is twice a never-empty expression: split/chunk in two equal halves."""
    return half(d) is not None and syms.at_least_one(d)


def _split(types, syms, pick):
    # Two pieces at every call: [k, d - k], or halves of a dim that is twice a symbol.
    (t,) = types
    dim = pick.index(t.rank)
    d = t.shape[dim]
    if _halvable(d, syms) and pick.flag():
        h = half(d)
        return _pieces(t, dim, [h, h], {"dim": dim, "sizes": f"{{0}}.shape[{dim}] // 2"})
    k = pick.integer(0, _smallest(d, syms))
    sizes = f"[{k}, {{0}}.shape[{dim}] - {k}]"
    return _pieces(t, dim, [sympy.Integer(k), d - k], {"dim": dim, "sizes": sizes})


def _smallest(d, syms) -> int:  # the dim's smallest size (0 if data-dependent)
    return 0 if syms.has_unbacked(d) else syms.range(d)[0]


def _pieces(t, dim, sizes, attrs):
    return Built(attrs, tuple(_like(t, _replace(t.shape, dim, s)) for s in sizes))


def _chunk_dims(t, syms):
    """Dims that chunk(2) splits in exactly two pieces at every call: never 1 (at least 2
    long, or twice an expression: 0 gives two empty pieces)."""
    return [
        i for i, d in enumerate(t.shape) if syms.at_least_two(d) or (half(d) is not None and d != 0)
    ]


def _chunk(types, syms, pick):
    (t,) = types
    dim = pick.pick(_chunk_dims(t, syms))
    d = t.shape[dim]
    first = sympy.ceiling(d / 2)
    return _pieces(t, dim, [first, d - first], {"dim": dim})


def _tensor_split(n):
    """n pieces at every call: n sections (the first d % n one longer, some may be
    empty), or n - 1 increasing indices no larger than the dim's smallest size."""

    def build(types, syms, pick):
        (t,) = types
        dim = pick.index(t.rank)
        d = t.shape[dim]
        if pick.flag():
            sizes = [sympy.floor((d + n - 1 - i) / n) for i in range(n)]
            return _pieces(t, dim, sizes, {"dim": dim, "where": n})
        lo = _smallest(d, syms)
        cuts = sorted(pick.integer(0, lo) for _ in range(n - 1))
        bounds = [sympy.Integer(0)] + [sympy.Integer(c) for c in cuts] + [d]
        sizes = [b - a for a, b in zip(bounds, bounds[1:])]
        return _pieces(t, dim, sizes, {"dim": dim, "where": tuple(cuts)})

    return build


def _unbind(types, syms, pick):
    (t,) = types
    dim = pick.pick([i for i, d in enumerate(t.shape) if d == 1])
    return Built({"dim": dim}, (_like(t, t.shape[:dim] + t.shape[dim + 1 :]),))


# ---- tril/triu, diagonal, movedim, flatten, unflatten ------------------------------------


def _triangle(types, syms, pick):
    (t,) = types
    return Built({"diagonal": pick.integer(-1, 1)}, (_like(t, t.shape),))


def _two_dims(t, pick):
    d1 = pick.index(t.rank)
    d2 = (d1 + 1 + pick.index(t.rank - 1)) % t.rank
    return d1, d2


def _diagonal(types, syms, pick):
    (t,) = types
    d1, d2 = _two_dims(t, pick)
    a, b = t.shape[d1], t.shape[d2]
    rest = [d for i, d in enumerate(t.shape) if i not in (d1, d2)]
    size = a if a == b else sympy.Min(a, b)
    return Built({"d1": d1, "d2": d2}, (_like(t, rest + [size]),))


def _movedim(types, syms, pick):
    (t,) = types
    src, dst = pick.index(t.rank), pick.index(t.rank)
    order = [i for i in range(t.rank) if i != src]
    order.insert(dst, src)
    return Built({"src": src, "dst": dst}, (_like(t, [t.shape[i] for i in order]),))


def _flatten_range(types, syms, pick):
    (t,) = types
    start, end = _two_dims(t, pick)
    start, end = min(start, end), max(start, end)
    merged = sympy.Mul(*t.shape[start : end + 1])
    shape = t.shape[:start] + (merged,) + t.shape[end + 1 :]
    return Built({"start": start, "end": end}, (_like(t, shape),))


def _factors(d):
    """Static factors k of `d` (2..4) for which d / k is an integer at every call."""
    return [k for k in (2, 3, 4) if quotient(d, k) is not None]


def _unflatten(types, syms, pick):
    (t,) = types
    dim = pick.index(t.rank)
    d = t.shape[dim]
    k = pick.pick([1] + _factors(d))
    shape = _replace(t.shape, dim, sympy.Integer(k), d if k == 1 else quotient(d, k))
    return Built({"dim": dim, "k": k}, (_like(t, shape),))


def _divisors(a: TensorType, b: TensorType, syms):
    """(dim of a, dim of b) where b's dim is a never-empty symbolic factor of a's dim."""
    out = []
    for i, d in enumerate(a.shape):
        for j, f in enumerate(b.shape):
            if f.free_symbols and syms.at_least_one(f) and not syms.has_unbacked(d):
                if quotient(d, f) is not None:
                    out.append((i, j))
    return out


def _unflatten_by(types, syms, pick):
    a, b = types
    dim, j = pick.pick(_divisors(a, b, syms))
    shape = _replace(a.shape, dim, b.shape[j], quotient(a.shape[dim], b.shape[j]))
    return Built({"dim": dim, "j": j}, (_like(a, shape),))


_OPS = (
    op(
        "pad_constant",
        "{out} = F.pad({0}, {pad}, value={value})",
        _ranked(1),
        _pad_constant,
        family="shape",
        imports=F_IMPORT,
    ),
    # reflect/replicate: EXIR only, Thunder 0.2.6 pads in constant mode only ("RuntimeError:
    # Mode arguments other than constant are not supported").
    op(
        "pad_reflect",
        "{out} = F.pad({src}, {pad}, mode='reflect'){post}",
        unary(_paddable),
        _pad_sided("reflect"),
        family="shape",
        lanes=EXIR_ONLY,
        imports=F_IMPORT,
    ),
    op(
        "pad_replicate",
        "{out} = F.pad({src}, {pad}, mode='replicate'){post}",
        unary(_paddable),
        _pad_sided("replicate"),
        family="shape",
        lanes=EXIR_ONLY,
        imports=F_IMPORT,
    ),
    op("repeat", "{out} = {0}.repeat{reps}", _ranked(1), _repeat, family="shape"),
    op("tile", "{out} = torch.tile({0}, {reps})", _ranked(1), _tile, family="shape"),
    op("flip", "{out} = torch.flip({0}, {dims})", _ranked(1), _flip, family="shape"),
    op("flip_dims", "{out} = torch.flip({0}, {dims})", _ranked(2), _flip_dims, family="shape"),
    op("roll", "{out} = torch.roll({0}, {shift}, {dims})", _ranked(1), _roll, family="shape"),
    op(
        "roll_number",
        "{out} = torch.roll({0}, {shift}, {dims})",
        with_numbers(lambda t, s: t.rank >= 1, ("int",)),
        _roll,
        family="shape",
    ),
    op("tril", "{out} = torch.tril({0}, {diagonal})", _ranked(2), _triangle, family="shape"),
    op("triu", "{out} = torch.triu({0}, {diagonal})", _ranked(2), _triangle, family="shape"),
)

_VIEWS = (
    # split/chunk: Thunder only for now. They export to `split_with_sizes_copy.out` (a list
    # out=), which the EXIR aliasing oracle does not connect to its getitems ("exir.aliasing
    # ... S5 unexplained sharing ...", every program: a harness gap). unbind, tensor_split:
    # both lanes (the EXIR crash once held against tensor_split was roll's: corpus
    # executorch_prim_mod_sign).
    op(
        "split",
        "{out0}, {out1} = torch.split({0}, {sizes}, {dim})",
        _ranked(1),
        _split,
        family="split",
        lanes=THUNDER_ONLY,
    ),
    op(
        "chunk",
        "{out0}, {out1} = torch.chunk({0}, 2, {dim})",
        unary(lambda t, s: bool(_chunk_dims(t, s))),
        _chunk,
        family="split",
        lanes=THUNDER_ONLY,
    ),
    op(
        "tensor_split",
        "{out0}, {out1} = torch.tensor_split({0}, {where}, {dim})",
        _ranked(1),
        _tensor_split(2),
        family="split",
    ),
    op(
        "tensor_split3",
        "{out0}, {out1}, {out2} = torch.tensor_split({0}, {where}, {dim})",
        _ranked(1),
        _tensor_split(3),
        family="split",
    ),
    op(
        "unbind",
        "({out},) = torch.unbind({0}, {dim})",
        unary(lambda t, s: any(d == 1 for d in t.shape)),
        _unbind,
        family="split",
    ),
    op(
        "diagonal",
        "{out} = torch.diagonal({0}, 0, {d1}, {d2})",
        _ranked(2),
        _diagonal,
        family="layout",
    ),
    op(
        "movedim", "{out} = torch.movedim({0}, {src}, {dst})", _ranked(1), _movedim, family="layout"
    ),
    op(
        "flatten_range",
        "{out} = {0}.flatten({start}, {end})",
        _ranked(2),
        _flatten_range,
        family="layout",
    ),
    op(
        "unflatten",
        "{out} = {0}.unflatten({dim}, ({k}, {0}.shape[{dim}] // {k}))",
        _ranked(1),
        _unflatten,
        family="layout",
    ),
    op(
        "unflatten_by",
        "{out} = {0}.unflatten({dim}, ({1}.shape[{j}], {0}.shape[{dim}] // {1}.shape[{j}]))",
        pairs(lambda a, b, s: bool(_divisors(a, b, s))),
        _unflatten_by,
        family="layout",
    ),
)


def _as_view(base: OpSpec) -> OpSpec:
    """The op returns views of operand 0: they may share its storage, and a view of an
    expanded tensor is no more writable in place than the tensor (views.py does the same)."""

    def build(types, syms, pick):
        built, writable = base.build(types, syms, pick), types[0].writable
        outputs = tuple(dataclasses.replace(t, writable=writable) for t in built.outputs)
        return dataclasses.replace(built, outputs=outputs)

    return dataclasses.replace(base, build=build, aliases=True)


# split/chunk/unbind/diagonal/movedim/flatten/unflatten return views of their operand.
OPS = _OPS + tuple(_as_view(view) for view in _VIEWS)
