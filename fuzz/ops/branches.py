"""Shape branches: Python `if` on shapes, bounded loops over a dimension, lookups keyed by
shape, and `torch.cond` with shape and data predicates.

Each branch op records a `Decision` whose predicate says, for a call's sizes, which way
the program goes; the call-sequence strategy uses it to keep or flip decisions between
calls. Both arms keep the operand's shape and dtype (operands are floats), so the program
stays valid either way. Branches only look at backed dims (never at data-dependent
sizes). Branches on number inputs are in fuzz/ops/numbers.py.
"""

from __future__ import annotations

import sympy

from fuzz.ops.spec import (
    BOTH,
    EXIR_ONLY,
    THUNDER_ONLY,
    Built,
    Decision,
    TensorType,
    float_typed,
    op,
    unary,
)

# Shape-preserving arms; `{x}` is the operand.
ARMS = ("{x} * 2.0", "{x} + 1.0", "torch.sin({x})", "{x}.abs()", "-{x}", "{x} * {x}")


def _backed_dims(t, syms):
    return [i for i, d in enumerate(t.shape) if not syms.has_unbacked(d) and d.free_symbols]


def _arms(pick, x):
    i = pick.index(len(ARMS))
    j = (i + 1 + pick.index(len(ARMS) - 1)) % len(ARMS)
    return ARMS[i].format(x=x), ARMS[j].format(x=x)


def _branch(kind, make):
    """`make(t, dim_expr, dim, syms, pick) -> (attrs, predicate, text)`."""

    def accept(t, syms):
        return float_typed(t, syms) and bool(_backed_dims(t, syms))

    def build(types, syms, pick):
        (t,) = types
        dim = pick.pick(_backed_dims(t, syms))
        attrs, predicate, text = make(t, t.shape[dim], dim, syms, pick)
        then, other = _arms(pick, "{0}")
        attrs |= {
            "dim": dim,
            "then": then,
            "other": other,
            "then_x": then.replace("{0}", "x"),
            "other_x": other.replace("{0}", "x"),
        }
        return Built(attrs, (TensorType(t.shape, t.dtype),), (Decision(kind, predicate, text),))

    return accept, build


def _eq(t, d, dim, syms, pick):
    lo, hi = syms.range(d)
    k = pick.integer(lo, hi)
    return {"k": k}, sympy.Eq(d, k), f"{d} == {k}"


def _lt(t, d, dim, syms, pick):
    lo, hi = syms.range(d)
    k = pick.integer(lo + 1, max(lo + 1, hi))
    return {"k": k}, sympy.Lt(d, k), f"{d} < {k}"


def _mod(t, d, dim, syms, pick):
    m = pick.pick((2, 3))
    return {"m": m}, sympy.Eq(sympy.Mod(d, m), 0), f"{d} % {m} == 0"


def _numel(t, d, dim, syms, pick):
    if any(syms.has_unbacked(x) for x in t.shape):
        return _lt(t, d, dim, syms, pick)  # fall back to a dim test (numel is unbacked)
    lo, hi = syms.range(t.numel())
    k = pick.integer(lo, max(lo, hi - 1))
    return {"k": k}, sympy.Gt(t.numel(), k), f"numel > {k}"


def _tuple_eq(t, d, dim, syms, pick):
    if any(syms.has_unbacked(x) for x in t.shape):
        return _eq(t, d, dim, syms, pick)
    values = [pick.integer(*syms.range(x)) for x in t.shape]
    predicate = sympy.And(*[sympy.Eq(x, v) for x, v in zip(t.shape, values)])
    return {"values": tuple(values)}, predicate, f"shape == {tuple(values)}"


def _loop(t, d, dim, syms, pick):
    cap = pick.integer(2, 4)
    return {"cap": cap}, sympy.Min(d, cap), f"min({d}, {cap}) iterations"


def _lookup(t, d, dim, syms, pick):
    lo, hi = syms.range(d)
    keys = sorted({pick.integer(lo, hi), pick.integer(lo, hi)})
    table = {k: 0.5 + i for i, k in enumerate(keys)}
    predicate = sympy.Piecewise(*[(i, sympy.Eq(d, k)) for i, k in enumerate(keys)], (-1, True))
    return {"table": table}, predicate, f"lookup of {d} in {keys}"


def _tuple_lookup(t, d, dim, syms, pick):
    return {}, sympy.Mod(d, 3), f"lookup of {d} % 3 in a tuple"


def _cond_shape(t, d, dim, syms, pick):
    lo, hi = syms.range(d)
    k = pick.integer(lo, max(lo, hi - 1))
    return {"k": k}, sympy.Gt(d, k), f"cond({d} > {k})"


def _cond_data(t, d, dim, syms, pick):
    return {}, None, "cond(sum > 0.5)"


def _branch_op(name, kind, template, make, lanes=BOTH, imports=()):
    accept, build = _branch(kind, make)
    aliases = kind == "loop"  # no iteration: the result is the operand itself
    return op(
        name,
        template,
        unary(accept),
        build,
        family="branch",
        lanes=lanes,
        imports=imports,
        aliases=aliases,
    )


_IF = "if {test}:\n    {out} = {then}\nelse:\n    {out} = {other}"
_COND = (
    "def {out}_then(x):\n    return {then_x}\n"
    "def {out}_else(x):\n    return {other_x}\n"
    "{out} = torch.cond({pred}, {out}_then, {out}_else, ({0},))"
)

OPS = (
    _branch_op("if_eq", "if-eq", _IF.replace("{test}", "{0}.shape[{dim}] == {k}"), _eq),
    _branch_op("if_lt", "if-lt", _IF.replace("{test}", "{0}.shape[{dim}] < {k}"), _lt),
    _branch_op("if_mod", "if-mod", _IF.replace("{test}", "{0}.shape[{dim}] % {m} == 0"), _mod),
    # `numel()` is EXIR-only: Thunder 0.2.6 under symbolic values asserts "IntegerProxy ...
    # has history None" on a branch on the numel() of a tensor whose sizes it computed
    # (`x[1:]`, `x.reshape(-1)`, some broadcasts: corpus_new/
    # thunder_numel_branch_history_none.py). The product of the sizes is the same test.
    _branch_op(
        "if_numel",
        "if-numel",
        _IF.replace("{test}", "math.prod({0}.shape) > {k}"),
        _numel,
        imports=("import math",),
    ),
    _branch_op(
        "if_numel_method",
        "if-numel",
        _IF.replace("{test}", "{0}.numel() > {k}"),
        _numel,
        EXIR_ONLY,
    ),
    _branch_op(
        "if_tuple", "if-tuple", _IF.replace("{test}", "tuple({0}.shape) == {values}"), _tuple_eq
    ),
    _branch_op(
        "loop",
        "loop",
        "{out} = {0}\nfor _ in range(min({0}.shape[{dim}], {cap})):\n    {out} = {out} * 0.5 + 1.0",
        _loop,
    ),
    # Thunder only: torch.export (non-strict) raises "unhashable type: non-nested SymInt"
    # on a dict keyed by a dynamic size (corpus/torch_export_dict_lookup_symint.py, a
    # limitation), so on the EXIR lane every program holding it ended at export and no
    # other oracle ran on it; EXIR draws the tuple lookup below instead.
    _branch_op(
        "lookup",
        "lookup",
        "{out} = {table}.get({0}.shape[{dim}], 1.0) * {0}",
        _lookup,
        THUNDER_ONLY,
    ),
    # EXIR only: under cache="symbolic values" Thunder 0.2.6 raises on every tuple index by
    # a size ("tuple indices must be integers or slices, not IntegerProxy", fixes on or
    # off), which would hide every other oracle on the program (corpus_new/
    # thunder_tuple_index_integerproxy.py).
    _branch_op(
        "lookup_tuple",
        "lookup",
        "{out} = (0.5, 1.5, 2.5)[{0}.shape[{dim}] % 3] * {0}",
        _tuple_lookup,
        EXIR_ONLY,
    ),
    _branch_op(
        "cond_shape",
        "cond-shape",
        _COND.replace("{pred}", "{0}.shape[{dim}] > {k}"),
        _cond_shape,
        EXIR_ONLY,
    ),
    _branch_op(
        "cond_data",
        "cond-data",
        # Not `> 0`: a normalized operand (group_norm, x - x.mean()) sums to zero up to
        # rounding, and the branch then follows rounding noise, which the runtime's
        # kernels need not reproduce (a fixes-on campaign filed it as a wrong result).
        _COND.replace("{pred}", "{0}.sum() > 0.5"),
        _cond_data,
        EXIR_ONLY,
    ),
)
