"""Memory and layout: copies, dtype conversions, memory formats, fresh tensors with
symbolic sizes, and `as_strided`.

`clone` and `empty_like` always make new storage; `contiguous`, `.to(dtype)`, `type_as`
and `.to(memory_format=...)` return their operand itself when it is already in that
form, so they may share storage with it (`aliases=True`) and keep its writability.
Fresh uninitialised storage (`new_empty`, `empty_like`) is always written before it is
read. `as_strided` runs on `x.contiguous()`, with sizes and strides derived from the
operand's shape so that every element it reaches is in bounds at every call; the
overlapping window view is read-only (in-place ops on it are errors).
"""

from __future__ import annotations

import dataclasses

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import EXIR_ONLY, THUNDER_ONLY, Built, OpSpec, TensorType, pairs, unary

ONE, TWO = sympy.Integer(1), sympy.Integer(2)
MATH = ("import math",)


def _any(t, syms):
    return True


def _rank(lo, hi=None):
    return unary(lambda t, s: lo <= t.rank and (hi is None or t.rank <= hi))


def _same(types, syms, pick):
    (t,) = types
    return Built({}, (dataclasses.replace(t),))


def _fresh(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType(t.shape, t.dtype),))


def _to_dtype(types, syms, pick):
    (t,) = types
    dtype = pick.pick(dtypes.ALL)
    return Built({"dtype": dtype}, (dataclasses.replace(t, dtype=dtype),))


def _type_as(types, syms, pick):
    a, b = types
    return Built({}, (dataclasses.replace(a, dtype=b.dtype),))


def _to_rank4(types, syms, pick):
    """Index with None so that the operand (rank 1..4) becomes rank 4: the Nones go
    before, between or after its dims, as drawn."""
    (t,) = types
    slots = [":"] * t.rank
    shape = list(t.shape)
    while len(slots) < 4:
        at = pick.index(len(slots) + 1)
        slots.insert(at, "None")
        shape.insert(at, ONE)
    index = "[" + ", ".join(slots) + "]" if t.rank < 4 else ""
    return {"index": index}, tuple(shape)


def _channels_last(types, syms, pick):
    attrs, shape = _to_rank4(types, syms, pick)
    (t,) = types
    return Built(attrs, (dataclasses.replace(t, shape=shape),))


def _new_sized(kind):
    def build(types, syms, pick):
        (t,) = types
        if kind == "reversed":
            return Built({}, (TensorType(tuple(reversed(t.shape)), t.dtype),))
        dim = pick.index(t.rank)
        shape = (t.shape[dim] + 1, TWO) if kind == "plus_one" else (TWO, t.shape[dim])
        return Built({"dim": dim}, (TensorType(shape, t.dtype),))

    return build


def _strided(types, syms, pick):
    (t,) = types
    n, last = t.numel(), t.shape[-1]
    rows = sympy.Mul(*t.shape[:-1]) if t.rank > 1 else ONE
    options = ["transpose", "every_other"]
    if all(syms.at_least_one(d) for d in t.shape):
        options.append("windows")
    kind = pick.pick(options)
    if kind == "transpose":  # the (rows, last) matrix read column by column
        size = ("{0}.shape[-1]", "math.prod({0}.shape[:-1])")
        stride = ("1", "{0}.shape[-1]")
        out = TensorType((last, rows), t.dtype, t.writable)
    elif kind == "every_other":  # elements 0, 2, 4, ... of the flat storage
        size, stride = ("({0}.numel() + 1) // 2",), ("2",)
        out = TensorType((sympy.floor((n + 1) / 2),), t.dtype, t.writable)
    else:  # overlapping windows of two: rows share elements, so never written
        size, stride = ("{0}.numel() - 1", "2"), ("1", "1")
        out = TensorType((n - 1, TWO), t.dtype, writable=False)
    attrs = {"size": "(" + ", ".join(size) + ",)", "stride": "(" + ", ".join(stride) + ",)"}
    return Built(attrs, (out,))


_ALIASING = (
    OpSpec("contiguous", "layout", "{out} = {0}.contiguous()", unary(_any), _same),
    OpSpec("to_dtype", "layout", "{out} = {0}.to(torch.{dtype})", unary(_any), _to_dtype),
    OpSpec("type_as", "layout", "{out} = {0}.type_as({1})", pairs(lambda a, b, s: True), _type_as),
    # Thunder only: ExecuTorch 1.5.1's portable kernels refuse operands of different dim
    # orders ("[tensor_util_portable.cpp:130] Check failed (all_contiguous ||
    # all_channels_last): 3 input tensors have different dim orders", then "RuntimeError:
    # method->execute() failed with error 0x12"), so a channels-last tensor that meets
    # any contiguous one crashes the runtime; even returned as is, the runtime raised
    # 0x12 at a call with other sizes. channels_last_back (back to contiguous) runs there.
    # The bug is registered (corpus/executorch_channels_last_scalar_operand.py): making
    # this op EXIR's too would let the fuzzer explore past it, at the cost of most such
    # programs showing that known crash.
    OpSpec(
        "channels_last",
        "layout",
        "{out} = {0}{index}.to(memory_format=torch.channels_last)",
        _rank(1, 4),
        _channels_last,
        THUNDER_ONLY,
    ),
    OpSpec(
        "channels_last_back",
        "layout",
        "{out} = {0}{index}.contiguous(memory_format=torch.channels_last).contiguous()",
        _rank(1, 4),
        _channels_last,
    ),
    OpSpec(
        "as_strided",
        "layout",
        "{out} = {0}.contiguous().as_strided({size}, {stride})",
        _rank(1),
        _strided,
        imports=MATH,
    ),
)

OPS = tuple(dataclasses.replace(op, aliases=True) for op in _ALIASING) + (
    OpSpec("clone", "layout", "{out} = {0}.clone()", unary(_any), _fresh),
    OpSpec(
        "empty_like_copy",
        "layout",
        "{out} = torch.empty_like({0}).copy_({0} * 2)",
        unary(_any),
        _fresh,
    ),
    # EXIR only: Thunder 0.2.6 has no Tensor.fill_ ("AttributeError: Unknown attribute
    # fill_" at trace time); new_empty_copy writes its fresh tensor with copy_ instead.
    OpSpec(
        "new_empty_fill",
        "layout",
        "{out} = {0}.new_empty(({0}.shape[{dim}] + 1, 2)).fill_(1.5)",
        _rank(1),
        _new_sized("plus_one"),
        EXIR_ONLY,
    ),
    OpSpec(
        "new_empty_copy",
        "layout",
        "{out} = {0}.new_empty({0}.shape).copy_({0} + 1)",
        unary(_any),
        _fresh,
    ),
    OpSpec(
        "new_ones",
        "layout",
        "{out} = {0}.new_ones((2, {0}.shape[{dim}]))",
        _rank(1),
        _new_sized("pair"),
    ),
    OpSpec(
        "new_zeros",
        "layout",
        "{out} = {0}.new_zeros({0}.shape[::-1])",
        unary(_any),
        _new_sized("reversed"),
    ),
)
