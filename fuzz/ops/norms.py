"""Normalizations: softmax and log_softmax over a dim, layer_norm, rms_norm and group_norm
over dims whose sizes change between calls, and dropout in eval mode.

All take float operands and return their dtype. Eager defines every one of them on
empty dims (softmax of an empty dim is empty; the norms of an empty group are empty),
so none avoids them. The normalized shape of layer_norm and rms_norm is read from the
operand (`x.shape[-2:]`), so it is symbolic where the operand's sizes are; group_norm's
groups divide the channel dim: any divisor of a static channel count, 1 for a dynamic
one. group_norm is called as `torch.group_norm` (the ATen op): `F.group_norm` refuses
one value per group ("Expected more than 1 value per channel when training") even in
eval, where the aten op normalizes it to 0; sizes of 1 are common here.
`F.dropout(x, p, training=False)` is the identity and returns `x` itself (an alias),
which is what a compiler must keep.
"""

from __future__ import annotations

import sympy

from fuzz.ops.spec import F_IMPORT, Built, TensorType, float_typed, op, unary

EPS = ("1e-05", "0.001")


def _ranked(rank):
    return lambda t, syms: float_typed(t, syms) and t.rank >= rank


def _same(t, **attrs):
    return Built(attrs, (TensorType(t.shape, t.dtype),))


def _softmax(types, syms, pick):
    (t,) = types
    dim = pick.index(t.rank)
    return _same(t, dim=dim - t.rank if pick.flag() else dim)


def _last_dims(types, syms, pick):
    (t,) = types
    return _same(t, k=1 + pick.index(min(t.rank, 2)), eps=pick.pick(EPS))


def _divisors(c: int) -> list[int]:
    return [g for g in range(1, c + 1) if c % g == 0]


def _group_norm(types, syms, pick):
    (t,) = types
    channels = t.shape[1]
    static = isinstance(channels, sympy.Integer) and int(channels) >= 1
    groups = pick.pick(_divisors(int(channels))) if static else 1
    return _same(t, groups=groups, eps=pick.pick(EPS))


def _dropout(types, syms, pick):
    (t,) = types
    p = pick.pick(("0.5", "0.0", "0.9"))
    return Built({"p": p}, (TensorType(t.shape, t.dtype, t.writable),))


OPS = (
    op(
        "softmax",
        "{out} = torch.softmax({0}, dim={dim})",
        unary(_ranked(1)),
        _softmax,
        family="norm",
        imports=F_IMPORT,
    ),
    op(
        "log_softmax",
        "{out} = F.log_softmax({0}, dim={dim})",
        unary(_ranked(1)),
        _softmax,
        family="norm",
        imports=F_IMPORT,
    ),
    op(
        "layer_norm",
        "{out} = F.layer_norm({0}, {0}.shape[-{k}:], eps={eps})",
        unary(_ranked(1)),
        _last_dims,
        family="norm",
        imports=F_IMPORT,
    ),
    op(
        "rms_norm",
        "{out} = F.rms_norm({0}, {0}.shape[-{k}:], eps={eps})",
        unary(_ranked(1)),
        _last_dims,
        family="norm",
        imports=F_IMPORT,
    ),
    op(
        "group_norm",
        "{out} = torch.group_norm({0}, {groups}, eps={eps})",
        unary(_ranked(2)),
        _group_norm,
        family="norm",
        imports=F_IMPORT,
    ),
    op(
        "dropout_eval",
        "{out} = F.dropout({0}, p={p}, training=False)",
        unary(_ranked(0)),
        _dropout,
        family="norm",
        imports=F_IMPORT,
        aliases=True,
    ),
)
