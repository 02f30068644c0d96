"""Math ops: transcendental and activation functions, clamp, pow, the divisions (true,
floor and trunc rounding, the `//` operator), remainder/fmod, round, sign, explicit
type-promotion mixes, and in-place forms.

Every op is valid at every call by construction, never by rejection, and never makes a
NaN or inf: log/sqrt/rsqrt read `x.abs()` (+ 1), pow raises `x.abs() + 1` to a bounded
exponent, and every divisor is `where(b < 0, b - 1, b + 1)`, non-zero with the sign of
`b` (integer division by zero raises; the sign is what floor division and remainder
treat differently from trunc division and fmod). The rounding divisions, remainder and
fmod take float32, float64 and int64 only: on float16/bfloat16 operands a quotient one
rounding away from an integer is common, and a compiler that computes it in float32
then legitimately lands on the other side of the jump.

Output dtypes follow torch (fuzz/ops/dtypes.py): an int or bool operand of a float
function gives float32, `torch.div` of two ints is float32 while its rounding modes keep
the promoted dtype, and a Python number only moves a tensor to a higher category.
"""

from __future__ import annotations

import dataclasses

from fuzz.ops import dtypes, inplace
from fuzz.ops.spec import (
    EXIR_ONLY,
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    op,
    pairs,
    typed,
    unary,
    with_numbers,
)

# A divisor that is never zero and keeps the sign of `{1}` (int64 in [-4, 4] -> [-5, 5]),
# and one that is never zero and has the other sign. The division ops draw either: the
# operand pair is often one value twice (inputs of unrelated shapes do not broadcast), and
# `x // NONZERO(x)` divides by a divisor of x's own sign, so its quotients are all
# positive and the sign corners of integer division (floor against trunc, remainder
# against fmod, a Python modulus with a negative divisor) were never reached that way.
NONZERO = "torch.where({1} < 0, {1} - 1, {1} + 1)"
NONZERO_OTHER_SIGN = "torch.where({1} < 0, 1 - {1}, -1 - {1})"
DIVISORS = (NONZERO, NONZERO_OTHER_SIGN)
ROUNDING = ("float32", "float64", "int64")
INT, ANY = ("int",), ("int", "scalar")


def to_float(dtype: str) -> str:
    """The dtype of a float function of a `dtype` tensor (ints and bool give float32)."""
    return dtypes.with_scalar(dtype, "float")


def unary_op(name, family, template, takes, result=lambda d: d, attrs=None):
    """A shape-preserving op of one tensor; `attrs(pick, dtype)` draws its attributes and
    returns them with the output dtype (else `result(dtype)`)."""

    def build(types, syms, pick):
        (t,) = types
        values, dtype = attrs(pick, t.dtype) if attrs else ({}, result(t.dtype))
        return Built(values, (TensorType(t.shape, dtype),))

    return OpSpec(name, family, template, unary(typed(*takes)), build)


def broadcastable(takes_a, takes_b=None):
    """Operand pairs of the given dtypes that broadcast at every call."""
    a_ok, b_ok = frozenset(takes_a), frozenset(takes_b or takes_a)

    def accept(a, b, syms):
        return (
            a.dtype in a_ok
            and b.dtype in b_ok
            and broadcast_shape(a.shape, b.shape, syms) is not None
        )

    return accept


def binary_op(name, family, template, takes_a, takes_b=None, result=dtypes.promote):
    """A broadcasting op of two tensors; `result(a_dtype, b_dtype)` is its dtype."""

    def build(types, syms, pick):
        a, b = types
        shape = broadcast_shape(a.shape, b.shape, syms)
        out = TensorType(shape, result(a.dtype, b.dtype))
        return Built({}, (out,), broadcast_decisions(a.shape, b.shape, syms))

    return OpSpec(name, family, template, pairs(broadcastable(takes_a, takes_b)), build)


def division_op(name, template, takes, result=dtypes.promote):
    """`binary_op` whose template divides by `{divisor}`, one of DIVISORS of `{1}`."""
    base = binary_op(name, "math", template, takes, result=result)

    def build(types, syms, pick):
        built = base.build(types, syms, pick)
        return dataclasses.replace(built, attrs=built.attrs | {"divisor": pick.pick(DIVISORS)})

    return dataclasses.replace(base, build=build)


def stable_dtype(t, ns, syms):
    """`t op n`: the result dtype must not depend on whether n is an int or a float."""
    return dtypes.is_float(t.dtype) or all(n.numeric == "int" for n in ns)


def number_kind(n) -> str:
    return "int" if n.numeric == "int" else "float"


def _true_div(a, b):
    return to_float(dtypes.promote(a, b))


def _pick_from(options):
    """Attributes drawn from `options` (text, Python number kind of the text)."""

    def attrs(pick, dtype):
        text, kind = pick.pick(options)
        return {"arg": text}, dtypes.with_scalar(dtype, kind)

    return attrs


# clamp bounds: (text, kind of the Python numbers in it)
CLAMP_BOUNDS = (
    ("min=-1, max=1", "int"),
    ("min=-0.5, max=0.5", "float"),
    ("min=0", "int"),
    ("max=0.25", "float"),
)
INT_CLAMP_BOUNDS = tuple(b for b in CLAMP_BOUNDS if b[1] == "int")
POW_EXPONENTS = (("2", "int"), ("3", "int"))
FRACTION_EXPONENTS = (("0.5", "float"), ("-1.5", "float"), ("1.5", "float"))


def _gelu_attrs(pick, dtype):
    return {"approximate": pick.pick(("none", "tanh"))}, dtype


def _clampable(a, b, syms):
    """Pairs that broadcast, not both bool: eager clamps two bool tensors, but Thunder
    0.2.6 refuses it at trace time ("RuntimeError: clamp is not supported for boolean
    type"), which the lane counts as an unsupported (skipped) program."""
    return broadcastable(dtypes.ALL)(a, b, syms) and (a.dtype, b.dtype) != ("bool", "bool")


def _clamp_tensor(types, syms, pick):
    a, b = types
    side = pick.pick(("min", "max"))
    shape = broadcast_shape(a.shape, b.shape, syms)
    out = TensorType(shape, dtypes.promote(a.dtype, b.dtype))
    return Built({"side": side}, (out,), broadcast_decisions(a.shape, b.shape, syms))


def _clamp_number(types, syms, pick):
    t, n = types
    bounds = pick.pick(("max={1}", "min=-{1}", "min=-{1}, max={1}"))
    return Built({"bounds": bounds}, (_scalar_result(t, n),))


def _scalar_result(t, n) -> TensorType:
    return TensorType(t.shape, dtypes.with_scalar(t.dtype, number_kind(n)))


def _by_number(result_kind=None):
    """Shape-preserving op of a tensor and a number; the dtype is `with_scalar` of the
    number's kind (or of `result_kind` when the template always makes a float)."""

    def build(types, syms, pick):
        t, n = types
        kind = result_kind or number_kind(n)
        return Built({}, (TensorType(t.shape, dtypes.with_scalar(t.dtype, kind)),))

    return build


def _of_dtype(dtype):
    """A shape-preserving op of a tensor and a number whose result is always `dtype`."""

    def build(types, syms, pick):
        return Built({}, (TensorType(types[0].shape, dtype),))

    return build


# ---- in-place ----------------------------------------------------------------------------


def _inplace(name, template, operands, build):
    """Two ops for one in-place op, as `fuzz.ops.inplace` splits them: `name` for programs
    none of whose tensors may be empty (both lanes), `name` + "empty" for programs where
    one may be (EXIR only: Thunder 0.2.6's UnboundLocalError on in-place ops with empty
    inputs, corpus_new/thunder_inplace_empty_unbound.py)."""

    def safe(values, syms):
        return [] if inplace._may_be_empty(values, syms) else operands(values, syms)

    def empty(values, syms):
        return operands(values, syms) if inplace._may_be_empty(values, syms) else []

    return (
        OpSpec(name, "inplace", template, safe, build, aliases=True),
        OpSpec(f"{name}empty", "inplace", template, empty, build, EXIR_ONLY, aliases=True),
    )


def _into(target, source, syms):
    """The source broadcasts into the writable target's exact shape, and the promoted
    dtype can be written back into the target (torch.can_cast)."""
    return inplace._fits(target, source, syms) and dtypes.can_cast(
        dtypes.promote(target.dtype, source.dtype), target.dtype
    )


def _inplace_calls(target: str, source: str) -> list[str]:
    """The in-place calls valid for these dtypes (each result castable to the target,
    which `_into` checks for the tensor operand): mul_ and clamp_ with a tensor bound
    always; number bounds for number targets (float bounds on floats only); div_ of
    number operands, true division into float targets, the rounding modes into
    float32/float64/int64 targets (see ROUNDING)."""
    calls = ["mul_({1})"]
    if (target, source) != ("bool", "bool"):  # Thunder refuses bool clamp: _clampable
        calls += ["clamp_(min={1})", "clamp_(max={1})"]
    if target in dtypes.NUMERIC:
        bounds = CLAMP_BOUNDS if dtypes.is_float(target) else INT_CLAMP_BOUNDS
        calls += [f"clamp_({text})" for text, _ in bounds]
    if target in dtypes.NUMERIC and source in dtypes.NUMERIC:
        if dtypes.is_float(target):
            calls.append(f"div_({NONZERO})")
        if target in ROUNDING:
            calls += [
                f'div_({d}, rounding_mode="{m}")' for d in DIVISORS for m in ("floor", "trunc")
            ]
    return calls


def _inplace_build(types, syms, pick):
    t, source = types
    call = pick.pick(_inplace_calls(t.dtype, source.dtype))
    out = TensorType(t.shape, t.dtype, t.writable)
    return Built({"call": call}, (out,), broadcast_decisions(t.shape, source.shape, syms))


OPS = (
    unary_op("log", "math", "{out} = torch.log({0}.abs() + 1)", dtypes.NUMERIC, to_float),
    unary_op("sqrt", "math", "{out} = torch.sqrt({0}.abs())", dtypes.NUMERIC, to_float),
    unary_op("rsqrt", "math", "{out} = torch.rsqrt({0}.abs() + 1)", dtypes.NUMERIC, to_float),
    unary_op("tanh", "math", "{out} = torch.tanh({0})", dtypes.ALL, to_float),
    unary_op("sigmoid", "math", "{out} = torch.sigmoid({0})", dtypes.ALL, to_float),
    unary_op(
        "gelu",
        "math",
        '{out} = torch.nn.functional.gelu({0}, approximate="{approximate}")',
        dtypes.FLOATS,
        attrs=_gelu_attrs,
    ),
    unary_op("silu", "math", "{out} = torch.nn.functional.silu({0})", dtypes.FLOATS),
    unary_op("round", "math", "{out} = torch.round({0})", dtypes.NUMERIC),
    unary_op("sign", "math", "{out} = torch.sign({0})", dtypes.ALL),
    unary_op(
        "clamp", "math", "{out} = {0}.clamp({arg})", dtypes.ALL, attrs=_pick_from(CLAMP_BOUNDS)
    ),
    op(
        "clamp_tensor",
        "{out} = torch.clamp({0}, {side}={1})",
        pairs(_clampable),
        _clamp_tensor,
        family="math",
    ),
    op(
        "clamp_number",
        "{out} = {0}.clamp({bounds})",
        with_numbers(typed(*dtypes.NUMERIC), ANY, fits=stable_dtype),
        _clamp_number,
        family="math",
    ),
    unary_op(
        "pow", "math", "{out} = torch.pow({0}, {arg})", dtypes.ALL, attrs=_pick_from(POW_EXPONENTS)
    ),
    unary_op(
        "pow_fraction",
        "math",
        "{out} = torch.pow({0}.abs() + 1, {arg})",
        dtypes.NUMERIC,
        attrs=_pick_from(FRACTION_EXPONENTS),
    ),
    binary_op(
        "pow_tensor",
        "math",
        "{out} = torch.pow({0}.abs() + 1, {1}.abs().clamp(max=2))",
        dtypes.NUMERIC,
    ),
    op(
        "pow_number",
        "{out} = ({0}.abs() + 1) ** ({1} / 4)",
        with_numbers(typed(*dtypes.NUMERIC), ANY),
        _by_number("float"),
        family="math",
    ),
    division_op("div", "{out} = torch.div({0}, {divisor})", dtypes.NUMERIC, result=_true_div),
    division_op("div_floor", '{out} = torch.div({0}, {divisor}, rounding_mode="floor")', ROUNDING),
    division_op("div_trunc", '{out} = torch.div({0}, {divisor}, rounding_mode="trunc")', ROUNDING),
    # The `//` operator: aten.floor_divide, which to_edge decomposes (core ATen table),
    # where `torch.div(rounding_mode="floor")` is core ATen already. Index arithmetic.
    division_op("floordiv", "{out} = {0} // {divisor}", ROUNDING),
    division_op("remainder", "{out} = torch.remainder({0}, {divisor})", ROUNDING),
    division_op("fmod", "{out} = torch.fmod({0}, {divisor})", ROUNDING),
    op(
        "floordiv_number",
        "{out} = {0} // ({1} + 1)",
        with_numbers(typed(*ROUNDING), ANY, fits=stable_dtype),
        _by_number(),
        family="math",
    ),
    op(
        "remainder_number",
        "{out} = torch.remainder({0}, -({1} + 1))",
        with_numbers(typed(*ROUNDING), ANY, fits=stable_dtype),
        _by_number(),
        family="math",
    ),
    # EXIR only: Thunder 0.2.6 has no `mod` method for tensor proxies, so `tensor % x`
    # raises "TypeError: 'NoneType' object is not callable" at trace time (whatever x
    # is); `torch.remainder` (remainder_number) traces.
    OpSpec(
        "mod_number",
        "math",
        "{out} = {0} % ({1} + 1)",
        with_numbers(typed(*ROUNDING), ANY, fits=stable_dtype),
        _by_number(),
        EXIR_ONLY,
    ),
    # Promotion mixes: a Python number (int or float per call) with a half tensor stays
    # half; an int tensor divided by a number is float32; a bool mask times a tensor.
    op(
        "half_number",
        "{out} = {0}.to(torch.float16) * {1} + 0.5",
        with_numbers(typed(*dtypes.ALL), ANY),
        _of_dtype("float16"),
        family="math",
    ),
    op(
        "long_div_number",
        "{out} = {0}.long() / ({1} + 1)",
        with_numbers(typed(*dtypes.ALL), ANY),
        _of_dtype(dtypes.DEFAULT_FLOAT),
        family="math",
    ),
    unary_op("mask_mul", "math", "{out} = ({0} > 0) * {0}", dtypes.ALL),
    # clamp_, div_ and mul_ with promotion, in one op (a pair of ops: see _inplace).
    *_inplace("math_", "{out} = {0}.{call}", inplace._disjoint_pairs(_into), _inplace_build),
)
