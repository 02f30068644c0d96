"""Replacements that keep Thunder from taking decisions no trace depends on.

Four places where stock Thunder, while tracing under symbolic values, pins more than the
trace needs: `bool()` in interpreted code marks a number static (so every input it derives
from is pinned to its exact value), `utils.same_shape` compares tuples element by element
before their lengths (a decision on sizes for an answer no size can change), and
`clang.arange` checks its start, step and stop with `math.isfinite`, which converts a
number proxy with `float()` (a decision on its exact value, where only its finiteness
counts), and `einsum` lets opt_einsum choose the contraction order from the operands'
exact sizes (`int()` of each, where only the order it picks counts). The fix's recorder
logs and replays the real decision instead (fixes/
thunder_symbolic_cache/patches.py installs these).
"""

from __future__ import annotations

import functools
import math

from fixes.thunder_symbolic_cache.expressions import _raw_value
from fixes.thunder_symbolic_cache.recorder import _current


def bool_lookaside_without_static_pin(NumberProxy, bool_lookaside):
    """`bool()` in interpreted code: Thunder's lookaside marks the proxy static, and
    propagate_constraints then pins every number input it derives from to its exact value
    (or nothing at all when the chain goes through prims.shape). The decision itself is
    recorded by `NumberProxy.__bool__` and replayed, so while recording we keep the proxy's
    constraint as it was: `if s > 0` then admits any positive `s`."""

    @functools.wraps(bool_lookaside)
    def bool_lookaside_without_static_pin(wrapped_x):
        x = getattr(wrapped_x, "value", None)
        if _current() is None or not isinstance(x, NumberProxy) or x.is_dynamic():
            return bool_lookaside(wrapped_x)  # (also raises for dynamic proxies, as before)
        constraint = x.constraint
        try:
            return bool_lookaside(wrapped_x)
        finally:
            x.constraint = constraint

    return bool_lookaside_without_static_pin


def same_shape_lengths_first(same_shape):
    """`utils.same_shape(a, b)` is `tuple(a) == tuple(b)`. CPython compares tuples element
    by element before it looks at their lengths, so broadcasting (1-D `b` against 2-D `a`)
    records `b[0] == a[0]` although the answer is False for any value: (5, 5) + (5,) would
    miss a trace made for (2, 3) + (3,). Checking the lengths first gives the same answer
    without that spurious decision."""

    @functools.wraps(same_shape)
    def same_shape_lengths_first(a, b, /):
        if len(a) != len(b):
            return False
        return same_shape(a, b)

    return same_shape_lengths_first


class MathWithFiniteness:
    """`thunder.clang`'s `math` module, but for `isfinite` of a number proxy: every int is
    finite, so an integer proxy is answered without a decision; for a float proxy the
    decision recorded is `isfinite(x)` itself (replayed in the prologue), not the exact
    value that `float(x)` would pin. A size that `arange` reaches (`torch.arange(n)`,
    `diagonal`'s index ranges: 115 of the float decisions of a 150-program night) then
    admits any value, as the trace does."""

    def __init__(self, module, NumberProxy, IntegerProxy):
        self._module, self._number, self._integer = module, NumberProxy, IntegerProxy

    def __getattr__(self, name):
        return getattr(self._module, name)

    def isfinite(self, x, /):
        if isinstance(x, self._integer):
            return True
        if isinstance(x, self._number):
            result = math.isfinite(_raw_value(x))
            rec = _current()
            if rec is not None:
                rec.guarded(rec.derive, result, math.isfinite, (x,))
            return result
        return self._module.isfinite(x)


class _EinsumPath:
    """`opt_einsum.contract_path(eq, *shapes)`'s contraction list, as a function of the
    symbolic sizes of the operands: what the einsum decomposition's structure depends on."""

    __slots__ = ("contract_path", "equation", "template", "kwargs", "__name__")

    def __init__(self, contract_path, equation, template, kwargs):
        self.contract_path, self.equation = contract_path, equation
        self.template, self.kwargs = template, kwargs
        self.__name__ = f"einsum_path[{equation}]"

    def __call__(self, *values):
        shapes = [
            tuple(values[d[1]] if d[0] == "n" else d[1] for d in dims) for dims in self.template
        ]
        _, info = self.contract_path(self.equation, *shapes, shapes=True, **self.kwargs)
        return path_signature(info)


def path_signature(info) -> tuple:
    """A contraction list as a comparable value (operands, labels summed over, the
    pairwise equation, whether BLAS is used): what Thunder's einsum reads of it."""
    return tuple(
        (tuple(c[0]), tuple(sorted(c[1])), c[2], c[4] if len(c) > 4 else None)
        for c in info.contraction_list
    )


class OptEinsumPathDecided:
    """`thunder.torch`'s `opt_einsum` module, but for `contract_path` on tensor proxies:
    opt_einsum chooses the contraction order from the operands' sizes, reading each with
    `int()` (a decision on its exact value: 56 of a 150-program night's int decisions).
    The decision recorded is the contraction list itself, replayed in the prologue on the
    new sizes: an einsum called on other sizes that gives the same order keeps the trace.
    The sizes are read as opt_einsum reads them (`.shape`, so the trace is as stock's)."""

    def __init__(self, module, NumberProxy, TensorProxy):
        self._module, self._number, self._tensor = module, NumberProxy, TensorProxy

    def __getattr__(self, name):
        return getattr(self._module, name)

    def contract_path(self, equation, *operands, **kwargs):
        rec = _current()
        if rec is None or not operands or not all(isinstance(o, self._tensor) for o in operands):
            return self._module.contract_path(equation, *operands, **kwargs)
        nodes, index, template = [], {}, []
        for operand in operands:
            dims = []
            for s in operand.shape:
                if isinstance(s, self._number):
                    if id(s) not in index:
                        index[id(s)] = len(nodes)
                        nodes.append(s)
                    dims.append(("n", index[id(s)]))
                else:
                    dims.append(("c", int(s)))
            template.append(tuple(dims))
        shapes = [
            tuple(_raw_value(nodes[d[1]]) if d[0] == "n" else d[1] for d in dims)
            for dims in template
        ]
        options = {k: v for k, v in kwargs.items() if k != "einsum_call"}
        result = self._module.contract_path(equation, *shapes, shapes=True, **options)
        replay = _EinsumPath(self._module.contract_path, equation, tuple(template), options)
        rec.guarded(record_replay, rec, replay, nodes, path_signature(result[1]))
        return result


def record_replay(rec, replay, proxies, observed) -> None:
    """Log `replay(*values of proxies) == observed` as one decision."""
    from fixes.thunder_symbolic_cache.expressions import _Op

    rec.decisions.append((_Op(replay, tuple(rec.node(p) for p in proxies)), "value", observed))
