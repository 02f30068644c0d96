"""The eager reference: plain PyTorch, one call after another."""

from __future__ import annotations

from fuzz.case import Case
from fuzz.observe import CallRecord, observe_call
from fuzz.tensors import copy_args


def run_eager(case: Case, calls: list[tuple]) -> list[CallRecord]:
    return [observe_call(case.program, copy_args(args)) for args in calls]
