"""`or` chains inside Thunder's shape checks: their False operands are not decisions.

Thunder checks shapes with `utils.check(a or b or c, message)`. Python evaluates the
chain operand by operand, converting each proxy comparison with `__bool__`, so a chain
that passed logs every operand that was False before the one that was True. Recorded as
decisions, those pins reject calls whose check passes through another operand, for
instance (issue #21, the Thunder lane's generated programs):

* `prims.broadcast_in_dim_meta`: `original_length == 1 or shape[idx] == original_length`.
  `unsqueeze`, `stack` and `expand` keep a size as it is (`shape[idx]` *is*
  `original_length`), but the first operand logged `size == 1 is False`, so an entry
  traced with that size 2 missed every call where it is 1, with the same trace;
* `clang.utils.expand_impl`: `requested_length == x or x == 1 or requested_length == -1`.
  `x.unsqueeze(0).expand(n, *x.shape)` compares `n` with the new dim's literal 1 and
  logged `n == 1 is False`, pinning `n` away from 1 although `x == 1` holds for any `n`;
* `clang.utils.compute_broadcast_shape`'s check,
  `(shape[idx] == 1) or (common_shape[idx] == shape[idx])`.

Each of these chains is the whole condition of a check whose only effect is to raise or
not, so what the trace requires is that the chain stays true. When it passed, the operand
that made it true was converted to True (by the chain, or by `check`'s own `if not cond`)
and that decision is kept; a False operand before it is not needed: on a call where it
is True the chain (and the check) passes as well, and the trace goes on the same. So a
False `__bool__` taken on one of these lines is not logged. Anything else on these lines
(a True operand, the check's own conversion) is, and a chain that fails raises while
tracing (no entry is made).

The lines are found in the functions' source when the fix is installed (Thunder 0.2.6
only); a line that is not found as expected is simply not listed, which keeps every
decision (sound). Only plain-Python callers are matched (the frame that evaluates the
chain must be the function's own frame): these functions run as metas and helpers, not
under Thunder's interpreter.
"""

from __future__ import annotations

import inspect

# (module attribute path, function name, the chain's text on its own source line)
_CHAINS = (
    (
        "thunder.core.prims",
        "broadcast_in_dim_meta",
        "original_length == 1 or shape[idx] == original_length,",
    ),
    (
        "thunder.clang.utils",
        "expand_impl",
        "requested_length == x or x == 1 or requested_length == -1,",
    ),
    (
        "thunder.clang.utils",
        "compute_broadcast_shape",
        "(shape[idx] == 1) or (common_shape[idx] == shape[idx]),",
    ),
)


def or_operand_sites() -> set[tuple]:
    """`(code object, line number)` of each chain above found in the installed Thunder."""
    import importlib

    sites = set()
    for module_name, fn_name, text in _CHAINS:
        try:
            fn = getattr(importlib.import_module(module_name), fn_name)
            lines, start = inspect.getsourcelines(fn)
        except (ImportError, AttributeError, OSError, TypeError):
            continue
        found = [start + i for i, line in enumerate(lines) if line.strip() == text]
        if len(found) == 1:  # exactly where we expect it, or not at all
            sites.add((fn.__code__, found[0]))
    return sites
