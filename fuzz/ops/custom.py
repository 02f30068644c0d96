"""The harness's custom ops whose output sizes come from numbers and shapes (not data).

`torch.ops.fuzz.head(x, n)` (the first n elements, zero-padded to n) with `n` a number
input or a dim of x, and `torch.ops.fuzz.bmul(a, b)` (a broadcasting product). Both lanes run
them: Thunder through `custom_op_ex` (the ops are `torch.library.custom_op` ops, see
fuzz/custom_ops.py), ExecuTorch through their `.out` overloads. A compiler that computes a
custom op's output size once, from the traced values, and reuses it for other sizes is
what these are for. (The data-dependent custom ops are in fuzz/ops/data_dependent.py.)
"""

from __future__ import annotations

from fuzz.ops import dtypes
from fuzz.ops.data_dependent import CUSTOM_IMPORT
from fuzz.ops.spec import (
    Built,
    Decision,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    pairs,
    unary,
    with_numbers,
)


def _head(types, syms, pick):
    t, n = types
    decision = Decision.on("custom-size", n.symbol, f"head size {n.symbol}", syms)
    return Built({}, (TensorType((n.symbol,), t.dtype),), (decision,))


def _backed_dims(t, syms):
    return [i for i, d in enumerate(t.shape) if d.free_symbols and not syms.has_unbacked(d)]


def _head_dim(types, syms, pick):
    (t,) = types
    dim = pick.pick(_backed_dims(t, syms))
    size = t.shape[dim]
    decision = Decision.on("custom-size", size, f"head size {size}", syms)
    return Built({"dim": dim}, (TensorType((size,), t.dtype),), (decision,))


def _bmul_ok(a, b, syms):
    return broadcast_shape(a.shape, b.shape, syms) is not None


def _bmul(types, syms, pick):
    a, b = types
    shape = broadcast_shape(a.shape, b.shape, syms)
    out = TensorType(shape, dtypes.promote(a.dtype, b.dtype))
    return Built({}, (out,), broadcast_decisions(a.shape, b.shape, syms))


def _custom(name, template, operands, build):
    return OpSpec(name, "custom", template, operands, build, imports=CUSTOM_IMPORT)


OPS = (
    _custom(
        "custom_head",
        "{out} = torch.ops.fuzz.head({0}, {1})",
        with_numbers(lambda t, s: t.rank >= 1, ("int",)),
        _head,
    ),
    _custom(
        "custom_head_dim",
        "{out} = torch.ops.fuzz.head({0}, {0}.shape[{dim}])",
        unary(lambda t, s: bool(_backed_dims(t, s))),
        _head_dim,
    ),
    _custom("custom_bmul", "{out} = torch.ops.fuzz.bmul({0}, {1})", pairs(_bmul_ok), _bmul),
)
