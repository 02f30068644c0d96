"""Reductions (sum/mean/amax over a dim, keepdim), matmul, cat and stack."""

from __future__ import annotations

import sympy

from fuzz.ops.spec import Built, OpSpec, TensorType, float_typed, pairs, unary


def _reduce(name, template, empty_ok):
    # mean/amax of an empty dim are nan/an error in eager: only reduce dims that are
    # never empty, unless the reduction is defined on empty input (sum).
    def accept(t, syms):
        return (
            float_typed(t, syms)
            and t.rank >= 1
            and (empty_ok or all(syms.at_least_one(d) for d in t.shape))
        )

    def build(types, syms, pick):
        (t,) = types
        dim, keepdim = pick.index(t.rank), pick.flag()
        if keepdim:
            shape = t.shape[:dim] + (sympy.Integer(1),) + t.shape[dim + 1 :]
        else:
            shape = t.shape[:dim] + t.shape[dim + 1 :]
        return Built({"dim": dim, "keepdim": keepdim}, (TensorType(shape),))

    return OpSpec(name, "reduction", template, unary(accept), build)


def _matmul_ok(a, b, syms):
    return (
        float_typed(a, syms)
        and float_typed(b, syms)
        and a.rank == 2
        and b.rank == 2
        and a.shape[1] == b.shape[0]
    )


def _matmul(types, syms, pick):
    a, b = types
    return Built({}, (TensorType((a.shape[0], b.shape[1])),))


def _gram(types, syms, pick):
    (t,) = types
    return Built({}, (TensorType(t.shape[:-1] + (t.shape[-2],)),))


def _same_shape(a, b, syms):
    return float_typed(a, syms) and float_typed(b, syms) and a.rank >= 1 and a.shape == b.shape


def _cat(types, syms, pick):
    a, b = types
    dim = pick.index(a.rank)
    shape = a.shape[:dim] + (a.shape[dim] + b.shape[dim],) + a.shape[dim + 1 :]
    return Built({"dim": dim}, (TensorType(shape),))


def _stack(types, syms, pick):
    a, _ = types
    dim = pick.index(a.rank + 1)
    return Built({"dim": dim}, (TensorType(a.shape[:dim] + (sympy.Integer(2),) + a.shape[dim:]),))


OPS = (
    _reduce("sum", "{out} = {0}.sum(dim={dim}, keepdim={keepdim})", empty_ok=True),
    _reduce("mean", "{out} = {0}.mean(dim={dim}, keepdim={keepdim})", empty_ok=False),
    _reduce("amax", "{out} = torch.amax({0}, dim={dim}, keepdim={keepdim})", empty_ok=False),
    OpSpec("matmul", "matmul", "{out} = torch.matmul({0}, {1})", pairs(_matmul_ok), _matmul),
    OpSpec(
        "gram",
        "matmul",
        "{out} = {0} @ {0}.transpose(-2, -1)",
        unary(lambda t, s: float_typed(t, s) and t.rank >= 2),
        _gram,
    ),
    OpSpec("cat", "concat", "{out} = torch.cat([{0}, {1}], dim={dim})", pairs(_same_shape), _cat),
    OpSpec(
        "stack", "concat", "{out} = torch.stack([{0}, {1}], dim={dim})", pairs(_same_shape), _stack
    ),
)
