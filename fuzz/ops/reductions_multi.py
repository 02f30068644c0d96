"""Reductions beyond reductions.py's single-dim sum/mean/amax: the same ops over one dim
(amin, prod, var, std, argmax, argmin, logsumexp, all, any, vector norm), over several
dims or all of them (`dim=(0, 2)`, `dim=None`, keepdim or not), and the scans cumsum and
cumprod.

What eager defines on empty input decides which dims each op may reduce: sum, prod
(1), all (True), any (False), the 1- and 2-norm (0) and the scans are defined on empty
dims; mean (nan), var/std (nan), logsumexp (-inf) and amax/amin/argmax/argmin (an
error) only reduce dims that are never empty. var/std use `correction=1` only when the
reduced elements number at least two at every call (one element gives nan), else
`correction=0`.

ExecuTorch 1.5.1's amax kernel aborts the whole process on an empty operand even when
the reduced dim is not empty (corpus/executorch_amax_empty_abort.py), and so does amin
(the same `MapReduceOverDimListPlan` assert, "Input tensor must be nonempty", SIGABRT on
`torch.amin(x, dim=0)` of a (1, 0) tensor): amin and the multi-dim amax/amin take the
same care as reductions.py's amax (`never_empty`: the whole operand is non-empty at
every call). argmax/argmin over a non-empty dim of an empty tensor run in both lanes, so
they only avoid empty reduced dims; with no dim (`argmax_all`) eager needs an element.

No ties decide an index: argmax/argmin take float operands only, and where several
elements are maximal torch documents that the first one's index is returned, so even a
tie (e.g. after relu) has one right answer. prod and cumprod clamp their operand to
[-2, 2] (ints) or [-1.5, 1.5] (floats) so that no product overflows an int64 or a
float16.
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import Built, OpSpec, TensorType, unary

ONE = sympy.Integer(1)


def _sum_dtype(dtype):
    return dtype if dtypes.is_float(dtype) else "int64"


def _float_result(dtype):
    return dtype if dtypes.is_float(dtype) else dtypes.DEFAULT_FLOAT


def _eligible(t, syms, empty_ok):
    """The dims the op may reduce: every dim when empty input is defined, else the dims
    that are never empty."""
    return [i for i, d in enumerate(t.shape) if empty_ok or syms.at_least_one(d)]


def _whole(t, syms):
    return all(syms.at_least_one(d) for d in t.shape)


def _reduced_shape(t, dims, keepdim):
    if keepdim:
        return tuple(ONE if i in dims else d for i, d in enumerate(t.shape))
    return tuple(d for i, d in enumerate(t.shape) if i not in dims)


def _spelled(dim, rank, pick):
    """A dim as written: its index or, by the gene, the equivalent negative index."""
    return dim - rank if pick.flag() else dim


def _at_least_two_elements(t, dims, syms):
    """Whether the reduced elements number >= 2 at every call (var/std, correction=1)."""
    count = sympy.Mul(*(t.shape[i] for i in dims)) if dims else ONE
    return all(syms.at_least_one(t.shape[i]) for i in dims) and syms.range(count)[0] >= 2


def _extra_attrs(kind, t, dims, syms, pick):
    if kind == "var":
        ok = _at_least_two_elements(t, dims, syms)
        return {"correction": pick.pick([1, 0]) if ok else 0}
    if kind == "norm":
        return {"ord": pick.pick([2, 1])}
    if kind == "clamp":
        return {"bound": "2" if t.dtype == "int64" else "1.5"}
    return {}


def _single(name, family, template, takes, empty_ok, result, never_empty=False, kind=None):
    """One dim, keepdim or not."""

    def accept(t, syms):
        whole = not never_empty or _whole(t, syms)
        return t.dtype in takes and t.rank >= 1 and bool(_eligible(t, syms, empty_ok)) and whole

    def build(types, syms, pick):
        (t,) = types
        dim, keepdim = pick.pick(_eligible(t, syms, empty_ok)), pick.flag()
        attrs = {"dim": _spelled(dim, t.rank, pick), "keepdim": keepdim}
        attrs |= _extra_attrs(kind, t, [dim], syms, pick)
        shape = _reduced_shape(t, {dim}, keepdim)
        return Built(attrs, (TensorType(shape, result(t.dtype)),))

    return OpSpec(name, family, template, unary(accept), build)


def _multi(name, template, takes, empty_ok, result, never_empty=False, kind=None, none=True):
    """Several dims (a tuple of two to all of them, in any order) or, where `none`, every
    dim as `dim=None`; keepdim or not. Only operands with two or more eligible dims: one
    dim is the single-dim op's (`_single`), so the tuple form spends its draws where
    several reduced dims must be kept or squeezed together. (Until 2026-12-04 it took
    one eligible dim too: 38 % of its draws were on rank-1 operands or one eligible dim,
    the single-dim op again; benchmarks/journal/2026-12-04.md.)"""

    def accept(t, syms):
        whole = not never_empty or _whole(t, syms)
        return t.dtype in takes and len(_eligible(t, syms, empty_ok)) >= 2 and whole

    def build(types, syms, pick):
        (t,) = types
        eligible = _eligible(t, syms, empty_ok)
        everything = len(eligible) == t.rank
        if none and everything and pick.index(3) == 0:
            dims, spelled = list(range(t.rank)), None
        else:
            count = 2 + pick.index(len(eligible) - 1)
            dims = pick.sample(eligible, count)
            spelled = tuple(_spelled(d, t.rank, pick) for d in dims)
        keepdim = pick.flag()
        attrs = {"dims": spelled, "keepdim": keepdim}
        attrs |= _extra_attrs(kind, t, dims, syms, pick)
        shape = _reduced_shape(t, set(dims), keepdim)
        return Built(attrs, (TensorType(shape, result(t.dtype)),))

    return OpSpec(name, "reduction-multi", template, unary(accept), build)


def _whole_reduction(name, template, takes, result, never_empty=False, kind=None):
    """Every element to one value, no dim argument (`torch.prod(x)`, `torch.argmax(x)`)."""

    def accept(t, syms):
        return t.dtype in takes and (not never_empty or _whole(t, syms))

    def build(types, syms, pick):
        (t,) = types
        attrs = _extra_attrs(kind, t, list(range(t.rank)), syms, pick)
        return Built(attrs, (TensorType((), result(t.dtype)),))

    return OpSpec(name, "reduction-multi", template, unary(accept), build)


def _scan(name, template, takes, result, kind=None):
    def accept(t, syms):
        return t.dtype in takes and t.rank >= 1

    def build(types, syms, pick):
        (t,) = types
        dim = pick.index(t.rank)
        attrs = {"dim": _spelled(dim, t.rank, pick)} | _extra_attrs(kind, t, [dim], syms, pick)
        return Built(attrs, (TensorType(t.shape, result(t.dtype)),))

    return OpSpec(name, "scan", template, unary(accept), build)


def _same(dtype):
    return dtype


def _index(dtype):
    return "int64"


def _bool(dtype):
    return "bool"


NO_BOOL = dtypes.NUMERIC
CLAMPED = "{0}.clamp(-{bound}, {bound})"
VAR = "correction={correction}, keepdim={keepdim}"
NORM = "{out} = torch.linalg.vector_norm({0}, ord={ord}, dim={dims}, keepdim={keepdim})"

SINGLE = (
    _single(
        "amin",
        "reduction",
        "{out} = torch.amin({0}, dim={dim}, keepdim={keepdim})",
        NO_BOOL,
        empty_ok=False,
        result=_same,
        never_empty=True,
    ),
    _single(
        "prod",
        "reduction",
        "{out} = torch.prod(" + CLAMPED + ", dim={dim}, keepdim={keepdim})",
        NO_BOOL,
        empty_ok=True,
        result=_same,
        kind="clamp",
    ),
    _single(
        "var",
        "reduction",
        "{out} = torch.var({0}, dim={dim}, " + VAR + ")",
        dtypes.FLOATS,
        empty_ok=False,
        result=_same,
        kind="var",
    ),
    _single(
        "std",
        "reduction",
        "{out} = torch.std({0}, dim={dim}, " + VAR + ")",
        dtypes.FLOATS,
        empty_ok=False,
        result=_same,
        kind="var",
    ),
    _single(
        "argmax",
        "reduction",
        "{out} = torch.argmax({0}, dim={dim}, keepdim={keepdim})",
        dtypes.FLOATS,
        empty_ok=False,
        result=_index,
    ),
    _single(
        "argmin",
        "reduction",
        "{out} = torch.argmin({0}, dim={dim}, keepdim={keepdim})",
        dtypes.FLOATS,
        empty_ok=False,
        result=_index,
    ),
    _single(
        "logsumexp",
        "reduction",
        "{out} = torch.logsumexp({0}, dim={dim}, keepdim={keepdim})",
        dtypes.NUMERIC,
        empty_ok=False,
        result=_float_result,
    ),
    _single(
        "all",
        "reduction",
        "{out} = torch.all({0}, dim={dim}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_bool,
    ),
    _single(
        "any",
        "reduction",
        "{out} = torch.any({0}, dim={dim}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_bool,
    ),
    _single(
        "norm",
        "reduction",
        "{out} = torch.linalg.vector_norm({0}, ord={ord}, dim={dim}, keepdim={keepdim})",
        dtypes.FLOATS,
        empty_ok=True,
        result=_same,
        kind="norm",
    ),
)

MULTI = (
    _multi(
        "sum_dims",
        "{out} = torch.sum({0}, dim={dims}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_sum_dtype,
    ),
    _multi(
        "mean_dims",
        "{out} = torch.mean({0}, dim={dims}, keepdim={keepdim})",
        dtypes.FLOATS,
        empty_ok=False,
        result=_same,
    ),
    _multi(
        "amax_dims",
        "{out} = torch.amax({0}, dim={dims}, keepdim={keepdim})",
        NO_BOOL,
        empty_ok=False,
        result=_same,
        never_empty=True,
        none=False,  # amax(dim=None) is refused by torch: all dims are the full tuple
    ),
    _multi(
        "amin_dims",
        "{out} = torch.amin({0}, dim={dims}, keepdim={keepdim})",
        NO_BOOL,
        empty_ok=False,
        result=_same,
        never_empty=True,
        none=False,
    ),
    _multi(
        "var_dims",
        "{out} = torch.var({0}, dim={dims}, " + VAR + ")",
        dtypes.FLOATS,
        empty_ok=False,
        result=_same,
        kind="var",
    ),
    _multi(
        "std_dims",
        "{out} = torch.std({0}, dim={dims}, " + VAR + ")",
        dtypes.FLOATS,
        empty_ok=False,
        result=_same,
        kind="var",
    ),
    _multi(
        "logsumexp_dims",
        "{out} = torch.logsumexp({0}, dim={dims}, keepdim={keepdim})",
        dtypes.NUMERIC,
        empty_ok=False,
        result=_float_result,
        none=False,  # logsumexp's dim must be a tuple
    ),
    _multi(
        "all_dims",
        "{out} = torch.all({0}, dim={dims}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_bool,
    ),
    _multi(
        "any_dims",
        "{out} = torch.any({0}, dim={dims}, keepdim={keepdim})",
        dtypes.ALL,
        empty_ok=True,
        result=_bool,
    ),
    _multi("norm_dims", NORM, dtypes.FLOATS, empty_ok=True, result=_same, kind="norm"),
)

WHOLE = (
    _whole_reduction(
        "prod_all", "{out} = torch.prod(" + CLAMPED + ")", NO_BOOL, _same, kind="clamp"
    ),
    _whole_reduction(
        "argmax_all", "{out} = torch.argmax({0})", dtypes.FLOATS, _index, never_empty=True
    ),
    _whole_reduction(
        "argmin_all", "{out} = torch.argmin({0})", dtypes.FLOATS, _index, never_empty=True
    ),
)

SCANS = (
    _scan("cumsum", "{out} = torch.cumsum({0}, dim={dim})", dtypes.ALL, _sum_dtype),
    _scan(
        "cumprod",
        "{out} = torch.cumprod(" + CLAMPED + ", dim={dim})",
        NO_BOOL,
        _same,
        kind="clamp",
    ),
)

OPS = SINGLE + MULTI + WHOLE + SCANS
