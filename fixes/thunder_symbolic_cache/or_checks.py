"""`or` chains inside Thunder's shape checks: one decision for the whole chain.

Thunder checks shapes with `utils.check(a or b or c, message)`. Python evaluates the
chain operand by operand, converting each proxy comparison with `__bool__`, and `check`
converts the operand the chain returned once more (`if not cond`). Recorded one by one,
those conversions pin which operand made the chain true, and reject calls whose check
passes through another operand, with the same trace (issue #21, the Thunder lane's
generated programs):

* `prims.broadcast_in_dim_meta`: `original_length == 1 or shape[idx] == original_length`.
  `unsqueeze`, `stack` and `expand` keep a size as it is (`shape[idx]` *is*
  `original_length`), but the first operand logged `size == 1 is False` (or `is True`
  for a size traced as 1), so an entry traced with that size 2 missed every call where it
  is 1, and the other way round;
* `clang.utils.expand_impl`: `requested_length == x or x == 1 or requested_length == -1`.
  `x.unsqueeze(0).expand(n, *x.shape)` compares `n` with the new dim's literal 1 and
  logged `n == 1 is False`, pinning `n` away from 1 although `x == 1` holds for any `n`;
* `clang.utils.compute_broadcast_shape`'s check,
  `(shape[idx] == 1) or (common_shape[idx] == shape[idx])` (its `if common_shape[idx] == 1`
  above is a real branch and stays recorded as it is).

Each chain is the whole condition of a check whose only effect is to raise or not, so
all the trace requires is that the chain stays true. While recording, a `__bool__` taken
on a chain's line, or by `check` called from the line that holds the chain, is therefore
not logged by itself; instead the chain is logged once as one decision,
`chain(operands...) is <value>`, with the operands read from the caller's frame and the
chain re-evaluated on their values (plain Python, the same operators). On replay it is
recomputed from the new inputs: a call whose chain passes through another operand hits,
and one whose chain fails misses (a fresh trace would raise there).

The lines are found in the functions' source when the fix is installed (Thunder 0.2.6
only); a chain that is not found exactly as expected is not listed, which keeps its
conversions as decisions (sound). Only plain-Python callers are matched (the converting
frame must be the function's own): these functions run as metas and helpers, never under
Thunder's interpreter. Other conversions on these lines (`__index__`, ...) are logged
as before.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable


@dataclasses.dataclass(frozen=True)
class _Chain:
    """One chain: where it is, how to read its operands from the frame, its comparisons
    (Python source over `{0}`, `{1}`, ... for `params`, in order, with the operands each
    one reads) and
    whether they are bound into the trace (`bound`: False inside a prim's meta, where
    Thunder records nothing)."""

    module: str
    function: str
    text: str  # the chain's source line, stripped
    operands: Callable[[dict], tuple]
    params: tuple[str, ...]
    ops: tuple[str, ...]
    uses: tuple[tuple[int, ...], ...]  # an op with two operands is their equality
    bound: bool


def _chain_replay_function(chain: _Chain, is_proxy: tuple[bool, ...]):
    """The chain as one decision: a function of the operands' values. Where the chain
    binds nothing it returns whether the chain passes (a "bool" decision); else it returns
    an int numbering the outcome `(passes, the comparisons evaluated that the trace
    binds)` (an "int" decision): comparisons that involve a proxy bind a symbol
    (`prims.eq`, ...) into the trace when they run outside a prim's meta, so which of them
    run is part of the trace, and part of the decision. Evaluated comparison by
    comparison as Python's `or` does; the function carries an inline form
    (`__inline__`, a conditional expression the prologue generator writes out in place
    of a call: it runs in every prologue call)."""
    bound_ops = [
        i for i, used in enumerate(chain.uses) if chain.bound and any(is_proxy[u] for u in used)
    ]
    outcomes: list = []  # outcome after comparison k passes (k < len), or none does
    evaluated: list[int] = []
    for i in range(len(chain.ops)):
        if i in bound_ops:
            evaluated.append(i)
        outcomes.append((True, tuple(evaluated)))
    outcomes.append((False, tuple(evaluated)))
    if bound_ops:
        ids: dict = {}
        results = [ids.setdefault(o, len(ids)) for o in outcomes]
    else:
        results = [passes for passes, _ in outcomes]
    # `(r0 if (op0) else r1 if (op1) else ... rN)` over `{0}`, `{1}`, ...
    inline = "(" + " ".join(f"{r!r} if ({op}) else" for r, op in zip(results, chain.ops))
    inline += f" {results[-1]!r})"
    name = chain.function + "_check"
    params = [f"a{i}" for i in range(len(chain.params))]
    src = f"def {name}({', '.join(params)}):\n    return {inline.format(*params)}\n"
    ns: dict = {}
    exec(compile(src, f"<or-chain {name}>", "exec"), ns)
    fn = ns[name]
    fn.__inline__ = inline
    fn.kind = "int" if bound_ops else "bool"
    return fn


_CHAINS = (
    _Chain(
        "thunder.core.prims",
        "broadcast_in_dim_meta",
        "original_length == 1 or shape[idx] == original_length,",
        lambda f: (f["original_length"], f["shape"][f["idx"]]),
        ("o", "t"),
        ("{0} == 1", "{1} == {0}"),
        ((0,), (0, 1)),
        bound=False,  # a prim's meta: Thunder records nothing it computes
    ),
    _Chain(
        "thunder.clang.utils",
        "expand_impl",
        "requested_length == x or x == 1 or requested_length == -1,",
        lambda f: (f["requested_length"], f["x"]),
        ("r", "x"),
        ("{0} == {1}", "{1} == 1", "{0} == -1"),
        ((0, 1), (1,), (0,)),
        bound=True,
    ),
    _Chain(
        "thunder.clang.utils",
        "compute_broadcast_shape",
        "(shape[idx] == 1) or (common_shape[idx] == shape[idx]),",
        lambda f: (f["shape"][f["idx"]], f["common_shape"][f["idx"]]),
        ("s", "c"),
        ("{0} == 1", "{1} == {0}"),
        ((0,), (0, 1)),
        bound=True,
    ),
)


def always_passes(chain: _Chain, nodes: tuple, values: tuple, is_proxy: tuple) -> bool:
    """Whether the chain's outcome cannot change: some comparison is an int operand
    compared with itself (the same expression node, as in `t == o` for a size `stack`
    keeps) and no comparison bound into the trace may run before it. Such a chain is not
    logged at all (the replay would always give the traced result)."""
    for used in chain.uses:
        if len(used) == 2 and nodes[used[0]] is nodes[used[1]]:
            v = values[used[0]]
            raw = v.__dict__.get("value") if is_proxy[used[0]] else v
            return type(raw) is int  # (a float could be NaN, never equal to itself)
        if chain.bound and any(is_proxy[u] for u in used):
            return False  # which comparisons run before it is part of the trace
    return False


_replays: dict[tuple, Callable] = {}


def chain_replay(chain: _Chain, is_proxy: tuple[bool, ...]) -> Callable:
    """The replay of `chain` for operands of which `is_proxy` are proxies: one function
    per chain and pattern, so equal decisions are replayed once (`expressions._key` keys
    functions by identity)."""
    key = (id(chain), is_proxy)
    r = _replays.get(key)
    if r is None:
        r = _replays[key] = _chain_replay_function(chain, is_proxy)
    return r


def chain_sites() -> tuple[dict, dict, object]:
    """`({(code, chain line): chain}, {(code, check call line): chain}, check's code)` for
    the chains found in the installed Thunder (see the module docstring)."""
    import importlib

    from thunder.core import baseutils

    at_chain, at_check = {}, {}
    for chain in _CHAINS:
        try:
            fn = getattr(importlib.import_module(chain.module), chain.function)
            lines, start = inspect.getsourcelines(fn)
        except (ImportError, AttributeError, OSError, TypeError):
            continue
        found = [i for i, line in enumerate(lines) if line.strip() == chain.text]
        # Exactly one such line, the argument of a `utils.check(` call opened on the line
        # above: anything else and the chain is left alone.
        if len(found) != 1 or found[0] == 0 or lines[found[0] - 1].strip() != "utils.check(":
            continue
        at_chain[(fn.__code__, start + found[0])] = chain
        at_check[(fn.__code__, start + found[0] - 1)] = chain
    return at_chain, at_check, baseutils.check.__code__
