"""Elementwise ops: unary, and binary with broadcasting (size-1 dims, rank differences)."""

from __future__ import annotations

from fuzz.ops.spec import (
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    float_typed,
    pairs,
    unary,
)


def _same(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType(t.shape, t.dtype),))


def _unary(name, template):
    return OpSpec(name, "elementwise", template, unary(float_typed), _same)


def _broadcastable(a, b, syms):
    return (
        float_typed(a, syms)
        and float_typed(b, syms)
        and broadcast_shape(a.shape, b.shape, syms) is not None
    )


def _binary_build(types, syms, pick):
    a, b = types
    shape = broadcast_shape(a.shape, b.shape, syms)
    return Built({}, (TensorType(shape),), broadcast_decisions(a.shape, b.shape, syms))


def _binary(name, template):
    return OpSpec(name, "broadcast", template, pairs(_broadcastable), _binary_build)


OPS = (
    _unary("neg", "{out} = torch.neg({0})"),
    _unary("abs", "{out} = torch.abs({0})"),
    _unary("sin", "{out} = torch.sin({0})"),
    _unary("exp", "{out} = torch.exp({0}.clamp(max=10.0))"),
    _unary("relu", "{out} = torch.relu({0})"),
    _unary("scale", "{out} = {0} * 0.5 + 1.0"),
    _binary("add", "{out} = {0} + {1}"),
    _binary("sub", "{out} = torch.sub({0}, {1})"),
    _binary("mul", "{out} = {0} * {1}"),
    _binary("maximum", "{out} = torch.maximum({0}, {1})"),
    _binary("where", "{out} = torch.where({0} > 0, {0}, {1})"),
)
