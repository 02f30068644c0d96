"""The eager reference: plain PyTorch, one call after another.

Each call's record can also compute the call in float64 (`reference64`, on demand): the
result oracle asks for it only when a float16 or bfloat16 output differs, to tell a
lowering that is merely as imprecise as eager from one that is wrong
(fuzz.oracles.results.within_eager_error).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import torch
import torch.utils._pytree as pytree

from fuzz.case import Case
from fuzz.observe import CallRecord, observe_call
from fuzz.tensors import copy_args, shares_storage


def run_eager(case: Case, calls: list[tuple]) -> list[CallRecord]:
    # torch.cond compiles its branches with dynamo even eagerly (and export uses dynamo):
    # every case starts from empty compile caches, so no example depends on the ones
    # before it (recompile limits, stale guards) and Hypothesis never sees flakiness.
    torch._dynamo.reset()
    return [
        dataclasses.replace(
            observe_call(case.program, copy_args(args)),
            reference64=float64_call(case.program, args),
        )
        for args in calls
    ]


def float64_call(program: Callable, args: tuple) -> Callable[[], CallRecord | None]:
    """The call with every floating-point tensor input in float64, computed once when
    first asked; None when two inputs share storage (separate float64 copies would not
    alias, and an in-place op would then compute something else) or it raises."""
    if shares_storage(args):
        return lambda: None
    inputs = copy_args(args)

    @functools.cache
    def reference() -> CallRecord | None:
        wide = pytree.tree_map(
            lambda a: (
                a.to(torch.float64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            ),
            list(inputs),
        )
        record = observe_call(program, wide)
        return None if record.error else record

    return reference
