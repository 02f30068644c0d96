"""Data-dependent ops: output sizes that depend on values (unbacked symbolic sizes).

aten ones (`nonzero`, `masked_select`, `.item()` used as a size) and the harness's own
data-dependent custom ops from `fuzz.custom_ops` (fake kernels returning
`ctx.new_dynamic_size()` bounded by `torch._check`). Thunder 0.2.6 cannot trace
data-dependent shapes, so these are EXIR-only. (Custom ops whose sizes come from shapes
and numbers run in both lanes: fuzz/ops/custom.py.)

`nonzero` is used several ways (`NONZERO_USES`), so that the registered ExecuTorch crash
on a cast of its output (corpus/executorch_nonzero_to_copy_dim_order.py) is one path
among several and what comes after a nonzero still gets tested.
"""

from __future__ import annotations

import sympy

from fuzz.ops import dtypes
from fuzz.ops.spec import EXIR_ONLY, Built, OpSpec, TensorType, unary

CUSTOM_IMPORT = ("import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)",)


def _flat_unbacked(bound_of):
    def build(types, syms, pick):
        (t,) = types
        attrs = {}
        bound = bound_of(t, attrs, pick)
        return Built(attrs, (TensorType((syms.unbacked(bound),), t.dtype),))

    return build


def _numel(t, attrs, pick):
    return t.numel()


def _head_bound(t, attrs, pick):
    attrs["k"] = pick.integer(1, 10)
    return sympy.Integer(attrs["k"])


# use -> (expression of the operand {0}, output is 2-D (u, rank) or 1-D (u,), dtype)
NONZERO_USES = {
    "index": ("{0}.reshape(-1)[torch.nonzero({0}.reshape(-1) > 0).squeeze(1)]", 1, None),
    "size": ("{0}.new_ones(torch.nonzero({0} > 0).shape[0])", 1, None),
    "count": ("torch.nonzero({0} > 0).sum(dim=1).float()", 1, "float32"),
    "raw": ("torch.nonzero({0} > 0)", 2, "int64"),
    "cast": ("torch.nonzero({0} > 0).to({0}.dtype)", 2, None),
}


def _nonzero(types, syms, pick):
    (t,) = types
    use = pick.pick(list(NONZERO_USES))
    expr, rank, dtype = NONZERO_USES[use]
    u = syms.unbacked(t.numel())
    shape = (u, sympy.Integer(t.rank)) if rank == 2 else (u,)
    return Built({"use": use, "expr": expr}, (TensorType(shape, dtype or t.dtype),))


def _split_sign(types, syms, pick):
    (t,) = types
    u0, u1 = syms.unbacked(t.numel()), syms.unbacked(t.numel())
    return Built({}, (TensorType((u0,), t.dtype), TensorType((u1,), t.dtype)))


_nonempty = unary(lambda t, s: t.rank >= 1)
_nonempty_numeric = unary(lambda t, s: t.dtype in dtypes.NUMERIC and t.rank >= 1)


def _custom(name, template, build):
    return OpSpec(
        name, "data-dependent", template, _nonempty_numeric, build, EXIR_ONLY, CUSTOM_IMPORT
    )


OPS = (
    OpSpec("nonzero", "data-dependent", "{out} = {expr}", _nonempty, _nonzero, EXIR_ONLY),
    OpSpec(
        "masked_select",
        "data-dependent",
        "{out} = torch.masked_select({0}, {0} > 0)",
        _nonempty,
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
        _nonempty,
        _flat_unbacked(_numel),
        EXIR_ONLY,
    ),
    _custom("custom_positive", "{out} = torch.ops.fuzz.positive({0})", _flat_unbacked(_numel)),
    _custom(
        "custom_positive_head",
        "{out} = torch.ops.fuzz.positive_head({0}, {k})",
        _flat_unbacked(_head_bound),
    ),
    _custom("custom_split_sign", "{out0}, {out1} = torch.ops.fuzz.split_sign({0})", _split_sign),
)
