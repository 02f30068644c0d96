"""Data-dependent ops: output sizes that depend on values (unbacked symbolic sizes).

aten ones (`nonzero`, `masked_select`, `.item()` used as a size) and the harness's own
custom ops from `fuzz.custom_ops` (fake kernels returning `ctx.new_dynamic_size()`
bounded by `torch._check`). Thunder 0.2.6 cannot trace data-dependent shapes, so these
are EXIR-only.
"""

from __future__ import annotations

import sympy

from fuzz.ops.spec import Built, OpSpec, TensorType, float_typed, unary

EXIR_ONLY = frozenset({"exir"})


def _flat_unbacked(bound_of):
    def build(types, syms, pick):
        (t,) = types
        attrs = {}
        bound = bound_of(t, attrs, pick)
        return Built(attrs, (TensorType((syms.unbacked(bound),)),))

    return build


def _numel(t, attrs, pick):
    return t.numel()


def _head_bound(t, attrs, pick):
    attrs["k"] = pick.integer(1, 10)
    return sympy.Integer(attrs["k"])


def _nonzero(types, syms, pick):
    (t,) = types
    u = syms.unbacked(t.numel())
    return Built({}, (TensorType((u, sympy.Integer(t.rank))),))


def _split_sign(types, syms, pick):
    (t,) = types
    return Built(
        {}, (TensorType((syms.unbacked(t.numel()),)), TensorType((syms.unbacked(t.numel()),)))
    )


_nonempty_float = unary(lambda t, s: float_typed(t, s) and t.rank >= 1)

OPS = (
    OpSpec(
        "nonzero",
        "data-dependent",
        "{out} = torch.nonzero({0} > 0).to({0}.dtype)",
        _nonempty_float,
        _nonzero,
        EXIR_ONLY,
    ),
    OpSpec(
        "masked_select",
        "data-dependent",
        "{out} = torch.masked_select({0}, {0} > 0)",
        _nonempty_float,
        _flat_unbacked(_numel),
        EXIR_ONLY,
    ),
    OpSpec(
        "item_as_size",
        "data-dependent",
        "{out}_n = int(({0} > 0).sum().item())\n"
        "torch._check({out}_n >= 0)\n"
        "torch._check({out}_n <= {0}.numel())\n"
        "{out} = {0}.reshape(-1).narrow(0, 0, {out}_n)",
        _nonempty_float,
        _flat_unbacked(_numel),
        EXIR_ONLY,
    ),
    OpSpec(
        "custom_positive",
        "data-dependent",
        "{out} = torch.ops.fuzz.positive({0})",
        _nonempty_float,
        _flat_unbacked(_numel),
        EXIR_ONLY,
    ),
    OpSpec(
        "custom_positive_head",
        "data-dependent",
        "{out} = torch.ops.fuzz.positive_head({0}, {k})",
        _nonempty_float,
        _flat_unbacked(_head_bound),
        EXIR_ONLY,
    ),
    OpSpec(
        "custom_split_sign",
        "data-dependent",
        "{out0}, {out1} = torch.ops.fuzz.split_sign({0})",
        _nonempty_float,
        _split_sign,
        EXIR_ONLY,
    ),
)
