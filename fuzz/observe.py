"""Running one call and recording everything the oracles compare.

The same `observe_call` runs eager, Thunder and (via an adapter) the ExecuTorch runtime,
so the comparison is symmetric: outputs (flattened, detached copies), the exception if
any, the inputs after the call (in-place mutation), and which outputs share storage with
which inputs or other outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.errors import error_text
from fuzz.tensors import storage_key


@dataclasses.dataclass
class CallRecord:
    outputs: list[Any]  # flattened leaves; tensors are detached CPU copies
    error: str | None  # "TypeName: message" when the call raised
    inputs_after: list[Any]  # flattened inputs after the call (tensors copied to CPU)
    # Storage-sharing facts: ("out", i) -> ("in", j) or ("out", k) it shares storage with.
    aliases: frozenset[tuple[tuple[str, int], tuple[str, int]]] = frozenset()
    # Whether output i is the very same tensor object as input j (e.g. `return x`).
    identity: frozenset[tuple[int, int]] = frozenset()
    # Eager only: the same call computed in float64, on demand (fuzz.backends.eager), what
    # the result oracle judges a half-precision mismatch against (fuzz.oracles.results).
    reference64: Callable[[], CallRecord | None] | None = dataclasses.field(
        default=None, compare=False, repr=False
    )


def cpu_copy(v):
    """A detached CPU copy of a tensor (the value itself for anything else)."""
    return v.detach().to("cpu", copy=True) if isinstance(v, torch.Tensor) else v


def alias_facts(inputs: Sequence[Any], outputs: Sequence[Any]):
    """Which outputs share storage with which inputs / earlier outputs."""
    where: dict[int, tuple[str, int]] = {}
    for j, t in enumerate(inputs):
        if isinstance(t, torch.Tensor) and (k := storage_key(t)) is not None:
            where.setdefault(k, ("in", j))
    aliases, identity = set(), set()
    for i, t in enumerate(outputs):
        if not isinstance(t, torch.Tensor):
            continue
        for j, x in enumerate(inputs):
            if t is x:
                identity.add((i, j))
        k = storage_key(t)
        if k is None:
            continue
        if k in where:
            aliases.add((("out", i), where[k]))
        else:
            where[k] = ("out", i)
    return frozenset(aliases), frozenset(identity)


def observe_call(fn: Callable[..., Any], args: Sequence[Any]) -> CallRecord:
    flat_in = pytree.tree_leaves(list(args))
    try:
        result = fn(*args)
    except Exception as e:  # the record keeps the failure; oracles decide if it matters
        return CallRecord([], error_text(e, None), [cpu_copy(x) for x in flat_in])
    flat_out = pytree.tree_leaves(result)
    aliases, identity = alias_facts(flat_in, flat_out)
    return CallRecord(
        outputs=[cpu_copy(v) for v in flat_out],
        error=None,
        inputs_after=[cpu_copy(x) for x in flat_in],
        aliases=aliases,
        identity=identity,
    )
