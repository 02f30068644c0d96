"""Documented limits of the ExecuTorch pipeline that the EXIR lane must count, not report
as bugs: a number input of another type than the one exported, an empty input's strides,
and a data-dependent size with no finite upper bound (the planner's own hint)."""

from __future__ import annotations

import torch

from fuzz.backends.exir.inputs import canonical_copy
from fuzz.case import case_from_source
from fuzz.case_runner import run_case

NUMBER_RETYPED = """
import torch
def program(x, n):
    return (x * n,)
def calls():
    return [(torch.randn(3), 3), (torch.randn(4), 3.0), (torch.randn(2), 3)]
"""

NO_FINITE_BOUND = """
import torch
def program(x):
    return (torch.masked_select(x, x > 0),)
def calls():
    return [(torch.randn(1),), (torch.randn(1),)]
LANES = ("exir",)
DIMS = {"x": {0: (1, 3)}}
"""


def test_a_number_of_another_type_is_outside_the_exported_contract():
    (report,) = run_case(case_from_source(NUMBER_RETYPED, "retyped"), ["exir"], ["cpu"]).reports
    assert report.skipped is None and report.divergences == []
    assert report.counters["call-outside-contract"] == 1
    assert any(
        "3.0, exported as the constant 3" in why for why in report.details["outside_contract"]
    )
    assert report.counters["calls-checked"] == 2


def test_empty_inputs_reach_the_runtime_with_canonical_strides():
    odd = torch.empty(0, 3).t()  # strides (1, 3): "contiguous" for torch, not for ExecuTorch
    assert odd.contiguous().stride() == odd.stride()
    copy = canonical_copy(odd)
    assert copy.shape == odd.shape and copy.stride() == torch.empty(3, 0).stride()


def test_a_size_with_no_finite_bound_is_a_skip_not_a_crash():
    (report,) = run_case(case_from_source(NO_FINITE_BOUND, "unbounded"), ["exir"], ["cpu"]).reports
    assert report.divergences == []
    assert report.skipped and report.skipped.startswith("no finite upper bound")
    assert "does not fit in 64 bits" in report.skipped
    assert report.counters["unsupported-skip"] == 1


NO_FINITE_BOUND_BOOL = NO_FINITE_BOUND.replace("torch.randn(1)", "torch.tensor([True])")


def test_an_unbounded_size_leaking_as_int_oo_is_the_same_skip():
    (report,) = run_case(
        case_from_source(NO_FINITE_BOUND_BOOL, "unbounded_bool"), ["exir"], ["cpu"]
    ).reports
    assert report.divergences == []
    assert report.skipped and report.skipped.startswith("no finite upper bound")
    assert "9223372036854775806" in report.skipped
