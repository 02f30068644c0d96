"""The XNNPACK lane (fuzz/backends/xnnpack): what the delegate took is a fact, the calls
run at several sizes inside the bounds, and a fault in the delegate's glue is found.

Ground truth: a program the partitioner takes in part (softmax, relu, mul; the matmul and
cat stay portable) passes at three sizes (export makes a dim's minimum 2); the fault
plugin tests/faults/xnnpack_sub_swapped.py (the delegate's subtract serialized with its
operands crossed) makes a delegated sub wrong at every call. The registered lowering bug
(corpus/executorch_xnnpack_unused_unbacked_size_assert_after_output.py) is checked by its
corpus case.
"""

from __future__ import annotations

import importlib
import re

import pytest
import torch

from fuzz.backends.registry import get_lane
from fuzz.case import case_from_source
from fuzz.case_runner import run_case

DELEGATED = """
import torch


def program(x0, w):
    v1 = torch.nn.functional.linear(x0, w)
    v2 = torch.softmax(v1, -1)
    return (torch.cat([v2, v2], 0) * 2.0, torch.relu(v1))


def calls():
    w = torch.randn(4, 8)
    return [(torch.randn(3, 8), w), (torch.randn(2, 8), w), (torch.randn(16, 8), w)]


DIMS = {"x0": {0: (1, 16)}}
LANES = ("xnnpack",)
"""

SUB = """
import torch


def program(a, b):
    return (torch.softmax(a - b, -1),)


def calls():
    return [(torch.randn(3, 8), torch.randn(3, 8)), (torch.randn(6, 8), torch.randn(6, 8))]


DIMS = {"a": {0: (1, 16)}, "b": {0: (1, 16)}}
LANES = ("xnnpack",)
"""


def _report(source: str, name: str):
    (report,) = run_case(case_from_source(source, name), lanes=("xnnpack",)).reports
    return report


def test_a_delegated_program_runs_at_every_size_and_says_what_the_delegate_took():
    report = _report(DELEGATED, "delegated")
    assert report.skipped is None and report.divergences == []
    assert report.counters["calls-checked"] == 3
    assert report.details["partitions"] >= 1
    delegated = [op for op in report.details["ops"] if op.startswith("xnnpack:")]
    assert {"xnnpack:aten._softmax.default", "xnnpack:aten.relu.default"} <= set(delegated)


def test_a_fault_in_the_delegate_glue_is_a_wrong_result():
    fault = importlib.import_module("tests.faults.xnnpack_sub_swapped")
    fault.install()
    try:
        report = _report(SUB, "sub")
    finally:
        fault.uninstall()
    kinds = {(d.kind, d.stage) for d in report.divergences}
    assert kinds == {("xnnpack.runtime-result", "call[0]"), ("xnnpack.runtime-result", "call[1]")}
    assert _report(SUB, "sub").divergences == []  # the stock delegate is right


def test_the_lane_runs_on_the_cpu_only():
    lane = get_lane("xnnpack")
    assert lane.unavailable("cpu") is None
    assert "CPU" in lane.unavailable("cuda")


SUMS = """
import torch


def program(x):
    b = x * 2.0 + 1.0
    return (b.sum(0) * b.sum(1),)


def calls():
    return [(torch.randn(8, 8),)]


LANES = ("xnnpack",)
"""


def test_the_plan_of_the_part_the_delegate_leaves_is_checked():
    """The planner fault tests/faults/planner_overlap.py (two live tensors share a byte)
    shows on the XNNPACK lane's own plan as xnnpack.overlap (the delegate's output and the
    portable sums' outputs); the stock plan has none."""
    assert _report(SUMS, "sums").divergences == []
    fault = importlib.import_module("tests.faults.planner_overlap")  # installs it
    fault.install()
    try:
        report = _report(SUMS, "sums")
    finally:
        fault.uninstall()
    overlaps = [d for d in report.divergences if d.kind == "xnnpack.overlap"]
    assert overlaps and all(d.stage == "memory-planning[greedy]" for d in overlaps)


UNBOUNDED = """
import torch


def program(x):
    return (torch.masked_select(x, x > 0),)


def calls():
    return [(INPUT(0, 3, 0),), (INPUT(2, 3, 1),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (0, 5), 1: (3, 4), 2: (0, 3)}}
"""


@pytest.mark.parametrize(
    "make, error",
    [("torch.randn", "does not fit in 64 bits"), ("torch.ones", "9223372036854775806")],
    ids=["float-planner", "bool-emitter"],
)
def test_a_size_with_no_finite_bound_is_a_skip_with_its_proof(make, error):
    """masked_select's size has no finite upper bound (torch gives it none): the planner
    (float) or the emitter (bool: int_oo - 1 as an int32) refuses it at to_executorch.
    As on the EXIR lane, a counted skip that names the tensor, not xnnpack.crash."""
    cast = "" if make == "torch.randn" else ".bool()"
    source = re.sub(r"INPUT(\(.*?\))", rf"{make}\1{cast}", UNBOUNDED)
    report = _report(source, "unbounded")
    assert report.divergences == []
    assert report.skipped.startswith("no finite upper bound: masked_select"), report.skipped
    assert error in report.skipped
    assert report.details["unbounded"] and report.counters["unsupported-skip"] == 1


def test_an_error_that_names_no_bound_is_not_that_skip():
    """The skip needs both the error's words and the proof in the program."""
    from fuzz.backends.base import LaneReport
    from fuzz.backends.exir import pipeline

    def skipped(ep, error):
        report = LaneReport("xnnpack", "cpu")
        return pipeline.skip_unbounded(report, ep, error), report

    ep = pipeline.export_program(
        lambda x: (torch.masked_select(x, x > 0),), (torch.randn(2),), {"x": {0: (1, 3)}}
    )
    bound_error = ValueError("mem_offset 1 does not fit in 64 bits")
    ok, report = skipped(ep, bound_error)
    assert ok and report.skipped.startswith("no finite upper bound: masked_select")
    ok, report = skipped(ep, RuntimeError("Missing out variants: {'aten::foo'}"))
    assert not ok and report.skipped is None and "unbounded" not in report.details
    bounded = pipeline.export_program(lambda x: (x * 2,), (torch.randn(2),), {"x": {0: (1, 3)}})
    ok, report = skipped(bounded, bound_error)
    assert not ok and report.skipped is None and report.details["unbounded"] == []
