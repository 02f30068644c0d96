"""Replacements that keep Thunder from taking decisions no trace depends on.

Two places where stock Thunder, while tracing under symbolic values, pins more than the
trace needs: `bool()` in interpreted code marks a number static (so every input it derives
from is pinned to its exact value), and `utils.same_shape` compares tuples element by
element before their lengths (a decision on sizes for an answer no size can change). The
fix's recorder logs and replays the real decision instead (fixes/thunder_symbolic_cache/
patches.py installs these).
"""

from __future__ import annotations

import functools

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
