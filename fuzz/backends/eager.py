"""The eager reference: plain PyTorch, one call after another."""

from __future__ import annotations

import torch

from fuzz.case import Case
from fuzz.observe import CallRecord, observe_call
from fuzz.tensors import copy_args


def run_eager(case: Case, calls: list[tuple]) -> list[CallRecord]:
    # torch.cond compiles its branches with dynamo even eagerly (and export uses dynamo):
    # every case starts from empty compile caches, so no example depends on the ones
    # before it (recompile limits, stale guards) and Hypothesis never sees flakiness.
    torch._dynamo.reset()
    return [observe_call(case.program, copy_args(args)) for args in calls]
