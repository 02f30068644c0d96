"""Indexing ops: gather/scatter, index_select, index_put, take_along_dim, masked_fill,
boolean masks and advanced indexing with an index tensor.

Every index tensor is derived in the template from the operand's sizes (or its values, by
a stable argsort), so it is in range at every call the generator may make, and never
indexes an empty dim. Writes are deterministic: `scatter` and `index_put` without
accumulation get permutation indices (each target written once); indices with
duplicates only go to `scatter_add` and `index_put(accumulate=True)`, which sum (equal
up to float summation order, inside the results oracle's tolerances).

`x[mask]` has a data-dependent size (an unbacked symbol, like `masked_select`), which
Thunder 0.2.6 cannot trace: EXIR only.
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import EXIR_ONLY, Built, TensorType, op, unary, with_numbers

# How an index tensor along `{dim}` of `{0}` is made (1-D, length of that dim):
#   reverse  a permutation (each position once)
#   half     i // 2: in range, with duplicates (only where they are summed or read)
PERMUTATIONS = {"reverse": "torch.arange({0}.shape[{dim}]).flip(0)"}
RAMPS = PERMUTATIONS | {"half": "torch.arange({0}.shape[{dim}]) // 2"}


def _dims(t: TensorType) -> list[int]:
    return list(range(t.rank))


def _spread(ramp: str, dim: int, rank: int) -> str:
    """The 1-D `ramp` placed along `dim` and expanded to `{0}`'s shape (indexing with
    None, not view(-1), so that an empty dim stays valid)."""
    where = ", ".join(":" if i == dim else "None" for i in range(rank))
    return f"({ramp})[{where}].expand_as({{0}})"


def _full_index(ramps: dict[str, str], argsort: bool):
    """An index of `{0}`'s shape along a picked dim: a ramp, or (when `argsort`) the
    stable argsort of the values along the dim (a data-dependent permutation)."""

    def pick_index(t, pick):
        dim = pick.pick(_dims(t))
        kinds = list(ramps) + (["argsort"] if argsort else [])
        kind = pick.pick(kinds)
        if kind == "argsort":
            src = "torch.argsort({0}, dim={dim}, stable=True)"
        else:
            src = _spread(ramps[kind], dim, t.rank)
        return dim, kind, src.replace("{dim}", str(dim))

    return pick_index


def _same_shape(pick_index, src_of=None):
    def build(types, syms, pick):
        t = types[0]
        dim, kind, index = pick_index(t, pick)
        attrs = {"dim": dim, "kind": kind, "index": index}
        if src_of is not None:
            attrs["src"] = src_of(t)
        return Built(attrs, (TensorType(t.shape, t.dtype),))

    return build


def _other(t: TensorType) -> str:
    """A source of `{0}`'s shape and dtype that differs from `{0}` (so a write shows)."""
    return "~{0}" if t.dtype == "bool" else "{0} * 2"


def _index_select(types, syms, pick):
    (t,) = types
    dim = pick.pick(_dims(t))
    form = pick.pick(["reverse", "half", "stride2"])
    d = t.shape[dim]
    if form == "stride2":  # every other position: ceil(d / 2) of them
        index, size = f"torch.arange(0, {{0}}.shape[{dim}], 2)", sympy.ceiling(d / 2)
    else:
        index, size = RAMPS[form].replace("{dim}", str(dim)), d
    shape = t.shape[:dim] + (size,) + t.shape[dim + 1 :]
    return Built({"dim": dim, "form": form, "index": index}, (TensorType(shape, t.dtype),))


def _index_put(accumulate: bool):
    ramps = RAMPS if accumulate else PERMUTATIONS

    def build(types, syms, pick):
        (t,) = types
        form = pick.pick(list(ramps))
        index = ramps[form].replace("{dim}", "0")
        attrs = {"form": form, "index": index, "src": _other(t)}
        return Built(attrs, (TensorType(t.shape, t.dtype),))

    return build


def _advanced(types, syms, pick):
    (t,) = types
    dim = pick.pick(_dims(t))
    form = pick.pick(list(RAMPS))
    index = RAMPS[form].replace("{dim}", str(dim))
    where = "[" + ":, " * dim + index + "]"
    return Built({"dim": dim, "form": form, "where": where}, (TensorType(t.shape, t.dtype),))


def _advanced_number(types, syms, pick):
    t, n = types
    return Built({}, (TensorType((n.symbol,) + t.shape[1:], t.dtype),))


def _masked_fill(types, syms, pick):
    t = types[0]
    if len(types) == 1:
        value = pick.pick(["0", "1"] if t.dtype in ("bool", "int64") else ["0.0", "-1.5"])
        return Built({"value": value}, (TensorType(t.shape, t.dtype),))
    return Built({"value": "{1}"}, (TensorType(t.shape, t.dtype),))


def _fill_dtype_stable(t, ns, syms):
    # A float number into an int/bool tensor truncates; keep those to int numbers, so the
    # filled value does not change kind between calls.
    return dtypes.is_float(t.dtype) or ns[0].numeric == "int"


def _mask_flat(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType((syms.unbacked(t.numel()),), t.dtype),))


def _mask_rows(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType((syms.unbacked(t.shape[0]),) + t.shape[1:], t.dtype),))


_ranked = unary(lambda t, s: t.rank >= 1)
_numeric = unary(lambda t, s: t.rank >= 1 and t.dtype in dtypes.NUMERIC)


OPS = (
    op(
        "gather",
        "{out} = torch.gather({0}, {dim}, {index})",
        _ranked,
        _same_shape(_full_index(RAMPS, argsort=True)),
        family="indexing",
    ),
    op(
        "take_along_dim",
        "{out} = torch.take_along_dim({0}, {index}, dim={dim})",
        _ranked,
        _same_shape(_full_index(RAMPS, argsort=True)),
        family="indexing",
    ),
    op(
        "scatter",
        "{out} = {0}.scatter({dim}, {index}, {src})",
        _ranked,
        _same_shape(_full_index(PERMUTATIONS, argsort=True), _other),
        family="indexing",
    ),
    op(
        "scatter_add",
        "{out} = {0}.scatter_add({dim}, {index}, {src})",
        _numeric,
        _same_shape(_full_index(RAMPS, argsort=False), _other),
        family="indexing",
    ),
    op(
        "index_select",
        "{out} = torch.index_select({0}, {dim}, {index})",
        _ranked,
        _index_select,
        family="indexing",
    ),
    op(
        "index_put",
        "{out} = {0}.index_put(({index},), {src})",
        _ranked,
        _index_put(accumulate=False),
        family="indexing",
    ),
    op(
        "index_put_acc",
        "{out} = {0}.index_put(({index},), {src}, accumulate=True)",
        _numeric,
        _index_put(accumulate=True),
        family="indexing",
    ),
    op("index_tensor", "{out} = {0}{where}", _ranked, _advanced, family="indexing"),
    op(
        "index_tensor_number",
        "{out} = {0}[torch.remainder(torch.arange({1}), {0}.shape[0])]",
        with_numbers(lambda t, s: t.rank >= 1 and s.at_least_one(t.shape[0]), ("int",)),
        _advanced_number,
        family="indexing",
    ),
    op(
        "masked_fill",
        "{out} = {0}.masked_fill({0} > 0, {value})",
        _ranked,
        _masked_fill,
        family="indexing",
    ),
    op(
        "masked_fill_number",
        "{out} = {0}.masked_fill({0} > 0, {value})",
        with_numbers(lambda t, s: t.rank >= 1, ("int", "scalar"), fits=_fill_dtype_stable),
        _masked_fill,
        family="indexing",
    ),
    # Data-dependent sizes: Thunder 0.2.6 cannot trace them (as masked_select).
    op(
        "mask_index",
        "{out} = {0}[{0} > 0]",
        _ranked,
        _mask_flat,
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
    op(
        "mask_index_rows",
        "{out} = {0}[{0}.flatten(1).sum(1) > 0]",
        unary(lambda t, s: t.rank >= 2),
        _mask_rows,
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
)
