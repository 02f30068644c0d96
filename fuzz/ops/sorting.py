"""Sorting and counting ops: sort, argsort, topk, unique, unique_consecutive, bincount,
searchsorted and repeat_interleave.

No output may depend on how ties are broken (that would be a false alarm, not a bug):
sort and argsort indices use `stable=True`; topk returns values only, except on
float32/float64 operands, where random normal inputs do not tie (float16/bfloat16 have
too few mantissa bits for that promise); unique uses `sorted=True`.

Values are taken as `[0]` of the (values, indices) result: Thunder 0.2.6 raises
"AttributeError: values" on `.values` of torch.sort/torch.topk (reported, not worked
around elsewhere). searchsorted builds its boundaries with `arange` (Thunder has no
`linspace`).

topk's k is always at most the dim's size: half of it (`d // 2`), or an int number input
clamped to it (`min(n, d)`, a shape decision like numbers.py's `narrow_number`).

Data-dependent sizes (unique, unique_consecutive, bincount without a fixed length,
repeat_interleave with a tensor of repeats and no output_size) are unbacked symbols,
bounded as their eager semantics bound them (a `torch._check` line gives export the
bound); Thunder 0.2.6 cannot trace data-dependent shapes, so those are EXIR only and of
the "data-dependent" family, as fuzz/ops/data_dependent.py.
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    EXIR_ONLY,
    Built,
    Decision,
    TensorType,
    op,
    typed,
    unary,
    with_numbers,
)

NO_TIES = ("float32", "float64")  # topk indices: random normal values never tie here
BINS = 8  # bincount's fixed length (values are clamped below it)
_BIN_VALUES = f"{{0}}.reshape(-1).long().abs().clamp(max={BINS - 1})"


def _at_most(out: str, bound: str) -> str:
    """A line bounding a data-dependent length for export (an unbacked size needs a finite
    upper bound to be planned), true by the op's semantics at every call."""
    return f"\ntorch._check({out}.shape[0] <= {bound})"


def _ranked(*takes):
    return unary(lambda t, s: t.rank >= 1 and t.dtype in takes)


# ---- sort, argsort, topk -----------------------------------------------------------------


def _sort(with_indices: bool):
    def build(types, syms, pick):
        (t,) = types
        dim, descending = pick.index(t.rank), pick.flag()
        outs = (TensorType(t.shape, t.dtype),)
        if with_indices:
            outs += (TensorType(t.shape, "int64"),)
        return Built({"dim": dim, "descending": descending}, outs)

    return build


def _argsort(types, syms, pick):
    (t,) = types
    dim, descending = pick.index(t.rank), pick.flag()
    return Built({"dim": dim, "descending": descending}, (TensorType(t.shape, "int64"),))


def _topk(with_indices: bool):
    def build(types, syms, pick):
        t, decisions = types[0], ()
        dim = pick.index(t.rank)
        d = t.shape[dim]
        if len(types) == 2:  # k: an int number input, clamped to the dim by min()
            n = types[1].symbol
            k, size = f"min({{1}}, {{0}}.shape[{dim}])", sympy.Min(n, d)
            decisions = (Decision.on("min", sympy.Lt(n, d), f"{n} < {d}", syms),)
        else:
            k, size = f"{{0}}.shape[{dim}] // 2", sympy.floor(d / 2)
        largest = pick.flag()
        shape = t.shape[:dim] + (size,) + t.shape[dim + 1 :]
        outs = (TensorType(shape, t.dtype),)
        if with_indices:
            outs += (TensorType(shape, "int64"),)
        return Built({"dim": dim, "k": k, "largest": largest}, outs, decisions)

    return build


# ---- unique, bincount, searchsorted ------------------------------------------------------


def _flat_unbacked(bound_of, dtype_of=lambda d: d):
    def build(types, syms, pick):
        (t,) = types
        return Built({}, (TensorType((syms.unbacked(bound_of(t)),), dtype_of(t.dtype)),))

    return build


def _unique_inverse(types, syms, pick):
    (t,) = types
    u = syms.unbacked(t.numel())
    return Built({}, (TensorType((u,), t.dtype), TensorType(t.shape, "int64")))


def _bincount(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType((sympy.Integer(BINS),), "int64"),))


def _searchsorted(types, syms, pick):
    (t,) = types
    right = pick.flag()
    if pick.flag():  # the operand's own sorted values as boundaries
        bounds = "torch.sort({0}.reshape(-1))[0]"
    elif dtypes.is_float(t.dtype):
        step = pick.pick(["0.5", "0.25"])
        bounds = f"torch.arange(-4, 5, dtype={{0}}.dtype) * {step}"
    else:
        bounds = "torch.arange(-3, 4, 2)"
    return Built({"bounds": bounds, "right": right}, (TensorType(t.shape, "int64"),))


# ---- repeat_interleave -------------------------------------------------------------------


def _repeat_int(types, syms, pick):
    (t,) = types
    dim, r = pick.index(t.rank), pick.integer(1, 3)
    shape = t.shape[:dim] + (t.shape[dim] * r,) + t.shape[dim + 1 :]
    return Built({"dim": dim, "r": r}, (TensorType(shape, t.dtype),))


def _repeat_sized(types, syms, pick):
    # repeats 1, 2, 1, 2, ... along the dim: d + d // 2 elements, given as output_size.
    (t,) = types
    dim = pick.index(t.rank)
    d = t.shape[dim]
    shape = t.shape[:dim] + (d + sympy.floor(d / 2),) + t.shape[dim + 1 :]
    return Built({"dim": dim}, (TensorType(shape, t.dtype),))


_all = _ranked(*dtypes.ALL)
_numeric = _ranked(*dtypes.NUMERIC)

OPS = (
    op(
        "sort",
        "{out} = torch.sort({0}, dim={dim}, descending={descending})[0]",
        _all,
        _sort(False),
        family="sort",
    ),
    op(
        "sort_stable",
        "{out0}, {out1} = torch.sort({0}, dim={dim}, descending={descending}, stable=True)",
        _all,
        _sort(True),
        family="sort",
    ),
    op(
        "argsort",
        "{out} = torch.argsort({0}, dim={dim}, descending={descending}, stable=True)",
        _all,
        _argsort,
        family="sort",
    ),
    op(
        "topk",
        "{out} = torch.topk({0}, {k}, dim={dim}, largest={largest})[0]",
        _numeric,
        _topk(False),
        family="sort",
    ),
    op(
        "topk_indices",
        "{out0}, {out1} = torch.topk({0}, {k}, dim={dim}, largest={largest})",
        unary(lambda t, s: t.rank >= 1 and typed(*NO_TIES)(t, s)),
        _topk(True),
        family="sort",
    ),
    op(
        "topk_number",
        "{out} = torch.topk({0}, {k}, dim={dim}, largest={largest})[0]",
        with_numbers(lambda t, s: t.rank >= 1 and t.dtype in dtypes.NUMERIC, ("int",)),
        _topk(False),
        family="sort",
    ),
    op(
        "searchsorted",
        "{out} = torch.searchsorted({bounds}, {0}, right={right})",
        _numeric,
        _searchsorted,
        family="sort",
    ),
    # EXIR only: Thunder 0.2.6 has no bincount even with a fixed length ("NotImplementedError:
    # Exception encountered when doing automatic registration for bincount, please use
    # manual registration: DynamicOutputShapeException").
    op(
        "bincount",
        f"{{out}} = torch.bincount({_BIN_VALUES}, minlength={BINS})"
        f"\ntorch._check({{out}}.shape[0] == {BINS})",
        _numeric,
        _bincount,
        family="count",
        lanes=EXIR_ONLY,
    ),
    op(
        "repeat_interleave",
        "{out} = {0}.repeat_interleave({r}, dim={dim})",
        _all,
        _repeat_int,
        family="count",
    ),
    # EXIR only: Thunder 0.2.6 has no `torch.repeat_interleave(repeats)` (the one-tensor form:
    # "TypeError: repeat_interleave() missing 1 required positional argument: 'repeats'")
    # and no `output_size` ("NotImplementedError: thunder.torch.repeat_interleave does not
    # support dim argument yet"). The repeat index is its own line so that each aten node
    # of the export maps to the eager value of its own line.
    op(
        "repeat_interleave_sized",
        "{out}_at = torch.repeat_interleave(\n"
        "    torch.remainder(torch.arange({0}.shape[{dim}]), 2) + 1,\n"
        "    output_size={0}.shape[{dim}] + {0}.shape[{dim}] // 2,\n"
        ")\n"
        "{out} = {0}.index_select({dim}, {out}_at)",
        _all,
        _repeat_sized,
        family="count",
        lanes=EXIR_ONLY,
    ),
    # Data-dependent sizes: Thunder 0.2.6 cannot trace them.
    op(
        "unique",
        "{out} = torch.unique({0}, sorted=True)" + _at_most("{out}", "{0}.numel()"),
        _all,
        _flat_unbacked(lambda t: t.numel()),
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
    op(
        "unique_inverse",
        "{out0}, {out1} = torch.unique({0}, sorted=True, return_inverse=True)"
        + _at_most("{out0}", "{0}.numel()"),
        _all,
        _unique_inverse,
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
    op(
        "unique_consecutive",
        "{out} = torch.unique_consecutive({0}.reshape(-1))" + _at_most("{out}", "{0}.numel()"),
        _all,
        _flat_unbacked(lambda t: t.numel()),
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
    op(
        "bincount_free",
        f"{{out}} = torch.bincount({_BIN_VALUES})" + _at_most("{out}", str(BINS)),
        _numeric,
        _flat_unbacked(lambda t: sympy.Integer(BINS), lambda d: "int64"),
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
    op(
        "repeat_interleave_free",
        "{out} = torch.repeat_interleave({0}.reshape(-1), ({0}.reshape(-1) > 0).long() + 1)"
        + _at_most("{out}", "2 * {0}.numel()"),
        _all,
        _flat_unbacked(lambda t: 2 * t.numel()),
        family="data-dependent",
        lanes=EXIR_ONLY,
    ),
)
