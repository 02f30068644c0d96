"""Ops on Python number inputs: what `cache="symbolic values"` is named for.

A number input is a `NumberType` (symbol kind "number", fuzz/ops/spec.py). "int" numbers
are Python ints at every call and serve as sizes (`new_zeros`, `new_full`, `expand`),
slice bounds (`x[:n]`, `narrow`), indices (`x[n % d]`) and loop counts; "scalar" numbers
are an int or a float, per call (fuzz/calls.py flips the type), so they only go where
both are valid: scales, `math` functions and branches. Every op that makes Python look
at a number's value records a `Decision` on it (`if n > k`, `math.sqrt(n)`, `min(n, d)`,
`range(n)`), which the call plans keep or flip like shape decisions.

Output dtypes follow torch's rules for a tensor and a Python number
(`dtypes.with_scalar`); an op whose result dtype would depend on the number's type at a
call (`int64_tensor * s`) only takes int numbers or float tensors.

Lane exclusions for known crashes: `math.floor`/`math.ceil` of a scalar number
(`math_round`) is EXIR-only, because Thunder 0.2.6 under symbolic values crashes on it
whenever the number is a float (corpus_new/thunder_float_number_floor.py);
`narrow(d, 0, min(n, x.shape[d]))` (`narrow_number`) is Thunder-only, because ExecuTorch's
edge verifier rejects the `torch.sym_min` export makes of it
(corpus_new/executorch_sym_min_edge_verifier.py).
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import (
    EXIR_ONLY,
    THUNDER_ONLY,
    Built,
    Decision,
    TensorType,
    float_typed,
    op,
    with_numbers,
)

INT, ANY = ("int",), ("int", "scalar")
MATH = ("import math",)
ARMS = ("{x} * 2.0", "{x} + 1.0", "torch.sin({x})", "-{x}", "{x} * {x}")


def _any(t, syms):
    return True


def _result(t: TensorType, number_type: str) -> str:
    return dtypes.with_scalar(t.dtype, number_type)


def _stable_dtype(t, ns, syms):
    # t * n: the result dtype must not depend on whether n is an int or a float.
    return dtypes.is_float(t.dtype) or ns[0].numeric == "int"


# ---- scales ------------------------------------------------------------------------------


def _mul(types, syms, pick):
    t, n = types
    return Built({}, (TensorType(t.shape, _result(t, "int" if n.numeric == "int" else "float")),))


def _shift(types, syms, pick):
    t, _ = types
    return Built({}, (TensorType(t.shape, _result(t, "float")),))


# ---- math: Python reads the value (`__float__`, `__floor__`) ------------------------------

# name -> (template of the call on `{1}`, sympy value, returns an int)
MATH_FNS = {
    "sqrt": ("math.sqrt({1})", sympy.sqrt, False),
    "log1p": ("math.log1p({1})", lambda n: sympy.log(1 + n), False),
    "exp": ("math.exp({1} / 4)", lambda n: sympy.exp(n / 4), False),
    "floor": ("math.floor({1})", sympy.floor, True),
    "ceil": ("math.ceil({1})", sympy.ceiling, True),
}
_INT_MATH = ("sqrt", "floor", "ceil", "log1p")
_SCALAR_MATH = ("sqrt", "log1p", "exp")


def _math(int_fns, scalar_fns):
    def build(types, syms, pick):
        t, n = types
        fn = pick.pick(int_fns if n.numeric == "int" else scalar_fns)
        call, value, integral = MATH_FNS[fn]
        out = TensorType(t.shape, _result(t, "int" if integral else "float"))
        decision = Decision("math", value(n.symbol), call.replace("{1}", str(n.symbol)))
        return Built({"fn": fn, "call": call}, (out,), (decision,))

    return build


# ---- branches on numbers -----------------------------------------------------------------


def _arms(pick):
    i = pick.index(len(ARMS))
    j = (i + 1 + pick.index(len(ARMS) - 1)) % len(ARMS)
    return ARMS[i].format(x="{0}"), ARMS[j].format(x="{0}")


def _if_number(types, syms, pick):
    t, n = types
    info = syms.info[n.symbol.name]
    k = pick.integer(info.lo, max(info.lo, info.hi - 1))
    then, other = _arms(pick)
    decision = Decision("if-number", sympy.Gt(n.symbol, k), f"{n.symbol} > {k}")
    return Built(
        {"k": k, "then": then, "other": other}, (TensorType(t.shape, t.dtype),), (decision,)
    )


def _backed_dims(t, syms):
    return [i for i, d in enumerate(t.shape) if d.free_symbols and not syms.has_unbacked(d)]


def _if_shape_number(types, syms, pick):
    t, n = types
    dim = pick.pick(_backed_dims(t, syms))
    then, other = _arms(pick)
    d = t.shape[dim]
    decision = Decision.on("if-shape-number", sympy.Gt(d, n.symbol), f"{d} > {n.symbol}", syms)
    attrs = {"dim": dim, "then": then, "other": other}
    return Built(attrs, (TensorType(t.shape, t.dtype),), (decision,))


# ---- numbers as sizes, bounds and indices ------------------------------------------------


def _new_zeros(types, syms, pick):
    t, n = types
    return Built({}, (TensorType((n.symbol,), t.dtype),))


def _new_full(types, syms, pick):
    t, n, _ = types
    return Built({}, (TensorType((n.symbol,), t.dtype),))


def _expand(types, syms, pick):
    t, n = types
    return Built({}, (TensorType((n.symbol,) + t.shape, t.dtype, writable=False),))


def _clamped(kind):
    def build(types, syms, pick):
        t, n = types
        dim = pick.index(t.rank) if kind == "min" else 0
        d = t.shape[dim]
        shape = t.shape[:dim] + (sympy.Min(d, n.symbol),) + t.shape[dim + 1 :]
        decision = Decision.on(kind, sympy.Lt(n.symbol, d), f"{n.symbol} < {d}", syms)
        out = TensorType(shape, t.dtype, t.writable)
        return Built({"dim": dim}, (out,), (decision,))

    return build


def _index(types, syms, pick):
    t, n = types
    d = t.shape[0]
    decision = Decision.on("index", sympy.Mod(n.symbol, d), f"{n.symbol} % {d}", syms)
    return Built({}, (TensorType(t.shape[1:], t.dtype, t.writable),), (decision,))


def _loop(types, syms, pick):
    t, n = types
    decision = Decision("loop-number", n.symbol, f"{n.symbol} iterations")
    return Built({}, (TensorType(t.shape, t.dtype),), (decision,))


_IF = "if {test}:\n    {out} = {then}\nelse:\n    {out} = {other}"

OPS = (
    op(
        "mul_number",
        "{out} = {0} * {1}",
        with_numbers(_any, ANY, fits=_stable_dtype),
        _mul,
        family="number",
    ),
    op(
        "shift_number",
        "{out} = {0} + ({1} - 1) / 2",
        with_numbers(_any, ANY),
        _shift,
        family="number",
    ),
    op(
        "math_number",
        "{out} = {0} * {call}",
        with_numbers(_any, ANY),
        _math(_INT_MATH, _SCALAR_MATH),
        family="number",
        imports=MATH,
    ),
    op(
        "math_round",
        "{out} = {0} * {call}",
        with_numbers(_any, ("scalar",)),
        _math((), ("floor", "ceil")),
        family="number",
        lanes=EXIR_ONLY,
        imports=MATH,
    ),
    op(
        "if_number",
        _IF.replace("{test}", "{1} > {k}"),
        with_numbers(float_typed, ANY),
        _if_number,
        family="number",
    ),
    op(
        "if_shape_number",
        _IF.replace("{test}", "{0}.shape[{dim}] > {1}"),
        with_numbers(lambda t, s: float_typed(t, s) and bool(_backed_dims(t, s)), ANY),
        _if_shape_number,
        family="number",
    ),
    op(
        "new_zeros_number",
        "{out} = {0}.new_zeros(({1},))",
        with_numbers(_any, INT),
        _new_zeros,
        family="number",
    ),
    op(
        "new_full_number",
        "{out} = {0}.new_full(({1},), {2})",
        with_numbers(_any, INT, ANY),
        _new_full,
        family="number",
    ),
    op(
        "expand_number",
        "{out} = {0}.unsqueeze(0).expand({1}, *{0}.shape)",
        with_numbers(_any, INT),
        _expand,
        family="number",
        aliases=True,
    ),
    op(
        "slice_number",
        "{out} = {0}[:{1}]",
        with_numbers(lambda t, s: t.rank >= 1, INT),
        _clamped("slice-clamp"),
        family="number",
        aliases=True,
    ),
    # Thunder only: under torch.export `min(n, x.shape[d])` is a `torch.sym_min` node, which
    # ExecuTorch's edge verifier rejects (corpus_new/executorch_sym_min_edge_verifier.py);
    # `slice_number` clamps the same way in both lanes.
    op(
        "narrow_number",
        "{out} = {0}.narrow({dim}, 0, min({1}, {0}.shape[{dim}]))",
        with_numbers(lambda t, s: t.rank >= 1, INT),
        _clamped("min"),
        family="number",
        lanes=THUNDER_ONLY,
        aliases=True,
    ),
    op(
        "index_number",
        "{out} = {0}[{1} % {0}.shape[0]]",
        with_numbers(lambda t, s: t.rank >= 1 and s.at_least_one(t.shape[0]), INT),
        _index,
        family="number",
        aliases=True,
    ),
    op(
        "loop_number",
        "{out} = {0}\nfor _ in range({1}):\n    {out} = {out} * 0.5 + 1.0",
        with_numbers(float_typed, INT),
        _loop,
        family="number",
        aliases=True,
    ),
)
