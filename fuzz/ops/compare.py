"""Comparisons as values, `where` with a Python scalar, and bitwise ops.

A comparison returns a bool tensor that later ops use as a value (masks, sums,
bitwise ops): it takes every dtype pair that broadcasts (torch compares in the promoted
dtype). `where(x > 0, x, 0.5)` keeps a float tensor's dtype and makes an int or bool one
float32; with an int scalar, bool becomes int64. Bitwise ops take bool and int64 only
(floats raise in eager), so a float operand enters as its mask `x > 0`; shifts take
int64, a float or bool operand entering as `x.long()`, and shift by 0..3 bits, never by
a negative amount.
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.math import (
    ANY,
    INT,
    binary_op,
    broadcastable,
    number_kind,
    stable_dtype,
    unary_op,
)
from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    pairs,
    typed,
    unary,
    with_numbers,
)

BITWISE = ("bool", "int64")
WHERE_SCALARS = (("0.5", "float"), ("-2", "int"), ("1.5", "float"))


def _bool_result(a, b):
    return "bool"


def _compare(name, fn):
    return binary_op(
        name, "compare", f"{{out}} = torch.{fn}({{0}}, {{1}})", dtypes.ALL, result=_bool_result
    )


def _bool_of_number(types, syms, pick):
    t, _ = types
    op = pick.pick((">", "<=", "!="))
    return Built({"op": op}, (TensorType(t.shape, "bool"),))


def _where_scalar(pick, dtype):
    text, kind = pick.pick(WHERE_SCALARS)
    return {"arg": text}, dtypes.with_scalar(dtype, kind)


def _where_number(types, syms, pick):
    t, n = types
    return Built({}, (TensorType(t.shape, dtypes.with_scalar(t.dtype, number_kind(n))),))


def _mask(i: int, dtype: str) -> tuple[str, str]:
    """Operand `i` as bitwise ops take it: bool and int64 as they are, a float tensor as
    its mask `x > 0` (bitwise ops raise on floats)."""
    return (f"{{{i}}}", dtype) if dtype in BITWISE else (f"({{{i}}} > 0)", "bool")


def _long(i: int, dtype: str) -> tuple[str, str]:
    """Operand `i` as an int64 tensor (shifts): a float truncated by `.long()`."""
    return (f"{{{i}}}", dtype) if dtype == "int64" else (f"{{{i}}}.long()", "int64")


def _bitwise(operand, attrs):
    """A bitwise op of every operand dtype, converted by `operand`: `{a}` (and `{b}`) in
    `template` are the converted operands, `{1}` alone a number operand."""

    def build(types, syms, pick):
        tensors = [t for t in types if isinstance(t, TensorType)]
        converted = [operand(i, t.dtype) for i, t in enumerate(tensors)]
        values = dict(zip("ab", (text for text, _ in converted))) | attrs(pick)
        dtype = converted[0][1]
        for _, other in converted[1:]:
            dtype = dtypes.promote(dtype, other)
        if len(tensors) == 2:
            a, b = tensors
            shape = broadcast_shape(a.shape, b.shape, syms)
            decisions = broadcast_decisions(a.shape, b.shape, syms)
            return Built(values, (TensorType(shape, dtype),), decisions)
        return Built(values, (TensorType(tensors[0].shape, dtype),))

    return build


def _shift_attrs(pick):
    return {"op": pick.pick(("<<", ">>")), "k": pick.integer(0, 3)}


def _bits_op(name, template, operands, operand=_mask, attrs=lambda pick: {}):
    return OpSpec(name, "bitwise", template, operands, _bitwise(operand, attrs))


_PAIRS = pairs(broadcastable(dtypes.ALL))
_ONE = unary()


OPS = (
    _compare("eq", "eq"),
    _compare("ne", "ne"),
    _compare("lt", "lt"),
    _compare("le", "le"),
    _compare("gt", "gt"),
    _compare("ge", "ge"),
    OpSpec(
        "compare_number",
        "compare",
        "{out} = {0} {op} {1}",
        with_numbers(typed(*dtypes.ALL), ANY),
        _bool_of_number,
    ),
    unary_op(
        "where_scalar",
        "compare",
        "{out} = torch.where({0} > 0, {0}, {arg})",
        dtypes.ALL,
        attrs=_where_scalar,
    ),
    OpSpec(
        "where_number",
        "compare",
        "{out} = torch.where({0} > 0, {0}, -{1})",
        with_numbers(typed(*dtypes.NUMERIC), ANY, fits=stable_dtype),
        _where_number,
    ),
    _bits_op("bitwise_and", "{out} = torch.bitwise_and({a}, {b})", _PAIRS),
    _bits_op("bitwise_or", "{out} = {a} | {b}", _PAIRS),
    _bits_op("bitwise_xor", "{out} = torch.bitwise_xor({a}, {b})", _PAIRS),
    _bits_op("bitwise_not", "{out} = ~{a}", _ONE),
    _bits_op("shift", "{out} = {a} {op} {k}", _ONE, _long, _shift_attrs),
    _bits_op(
        "shift_tensor",
        "{out} = torch.bitwise_right_shift({a}, {b}.abs().clamp(max=3))",
        _PAIRS,
        _long,
    ),
    _bits_op(
        "shift_bits_number",
        "{out} = {a} {op} ({1} % 4)",
        with_numbers(typed(*dtypes.ALL), INT),
        _long,
        lambda pick: {"op": pick.pick(("<<", ">>"))},
    ),
)
