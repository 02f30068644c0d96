"""What the EXIR lane exports a program for, runs it on and compares it with.

The program is exported for independent contiguous copies of each call's tensors, the
runtime and the ATen interpreter get those copies, and the lane's eager reference is
eager on them too. Number inputs are specialized by export: another value is outside
the exported contract.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

import fuzz.custom_ops  # noqa: F401
from fuzz.backends.base import LaneReport
from fuzz.backends.eager import run_eager
from fuzz.backends.exir import ExirLane
from fuzz.backends.exir.checks import Calls
from fuzz.backends.exir.inputs import derive_dims, independent, is_independent, lane_reference
from fuzz.backends.exir.pipeline import build
from fuzz.backends.exir.runtime import LoadedProgram, run_on_runtime
from fuzz.case import case_from_source
from fuzz.oracles.results import compare_results
from fuzz.tensors import materialize

warnings.filterwarnings("ignore")

CORPUS = Path(__file__).resolve().parents[3] / "corpus"


def run(src: str, lane: ExirLane | None = None):
    case = case_from_source(src, "case")
    calls = materialize(case)
    return (lane or ExirLane(strict=True)).run(case, calls, run_eager(case, calls), "cpu")


def kinds_at(report):
    return [(d.kind, d.stage) for d in report.divergences]


# ---------------------------------------------------------------------------------------
# The reference is eager on what the runtime is fed


CONTIGUOUS_VIEW = """
import torch
def program(x):
    y = torch.neg(x)
    flat = y.contiguous().view(-1)
    y.add_(x)
    return (flat,)
def calls():
    return [(torch.randn(4, 3).transpose(0, 1),), (torch.randn(3, 5),)]
"""


def test_eager_on_the_original_layout_is_not_the_reference():
    """`.contiguous()` aliases its input only when that input is contiguous, so eager
    on the transposed input returns -x while the program export recorded (for a
    contiguous example, where `flat` views `y`) returns -x + x = 0 on every input. The
    runtime is fed contiguous copies and must match eager on those: it does, and the
    ATen interpreter, fed the same copies, runs (it raised "view size is not
    compatible" on the transposed input), so under-allocation checks the call."""
    case = case_from_source(CONTIGUOUS_VIEW, "contiguous_view")
    calls = materialize(case)
    reference = run_eager(case, calls)
    assert not torch.equal(reference[0].outputs[0], torch.zeros(12))  # eager on the original
    report = ExirLane(strict=True).run(case, calls, reference, "cpu")
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["reference-rerun"] == 1  # only the transposed call
    assert report.counters["calls-checked"] == 2
    assert report.counters["aten-interpret-error"] == 0
    assert report.counters["tensors-checked"] > 0 and report.counters["tensors-not-reached"] == 0


def test_runtime_result_still_fires_on_a_wrong_runtime_result():
    """The registered nonzero dim-order bug: the runtime's indices are wrong whatever the
    reference's inputs, so exir.runtime-result stays."""
    report = run((CORPUS / "executorch_nonzero_dim_order.py").read_text())
    assert kinds_at(report) == [("exir.runtime-result", "call[0]")]
    assert "output 0" in report.divergences[0].details


def test_lane_reference_reruns_only_calls_that_are_not_independent():
    def program(x, y):
        return (x + y,)

    a = torch.randn(4)
    calls = [
        (torch.randn(4), torch.randn(4)),  # independent: the case runner's record is reused
        (a, a),  # one storage twice
        (torch.randn(4, 2).t()[0], torch.randn(4)),  # non-contiguous
    ]
    assert [is_independent(c) for c in calls] == [True, False, False]
    reference = [object(), object(), object()]  # reused records are passed through as is
    fed, eager, rerun = lane_reference(program, calls, reference)
    assert rerun == 2 and eager[0] is reference[0]
    assert all(is_independent(c) for c in fed)
    assert fed[1][0] is not fed[1][1] and torch.equal(fed[1][0], a)
    assert torch.equal(eager[2].outputs[0], calls[2][0] + calls[2][1])
    assert independent(calls[0])[0] is not calls[0][0]


# ---------------------------------------------------------------------------------------
# Mutated inputs: one result comparison for both lanes, the EXIR lane checks mutations


INPLACE = """
import torch
def program(x, y):
    x.add_(y)
    return (x * 2,)
def calls():
    return [(torch.randn(4, 3), torch.randn(3)), (torch.randn(5, 3), torch.randn(3))]
"""


def test_a_wrong_mutation_returned_by_the_runtime_is_a_runtime_result():
    """The .pte of `x.add_(2 * y); return x * 2 - 2 * y`: the same output as the program,
    but it writes another value into x. Only the mutation check sees it."""
    case = case_from_source(INPLACE, "inplace")
    calls = materialize(case)
    ref = run_eager(case, calls)
    host = [tuple(c) for c in calls]
    b = build(case.program, host[0], derive_dims(case, host))

    def other(x, y):
        x.add_(2 * y)
        return (x * 2 - 2 * y,)

    b.buffer = build(other, host[0], derive_dims(case, host)).buffer
    fed, eager, _ = lane_reference(case.program, host, ref)
    report = LaneReport("exir", "cpu")
    ExirLane(strict=True).check_build(b, Calls(host, fed, ref, eager), "cpu", report)
    assert {(d.kind, d.data.get("input")) for d in report.divergences} == {
        ("exir.runtime-result", 0)
    }
    assert all("after the call (mutation)" in d.details for d in report.divergences)


def test_compare_results_checks_inputs_only_when_asked():
    case = case_from_source(INPLACE, "inplace")
    calls = materialize(case)
    (expected, _) = run_eager(case, calls)
    b = build(case.program, calls[0], {0: {0: (4, 5)}})
    loaded = LoadedProgram(b.buffer)
    try:
        got = run_on_runtime(loaded, b.et_program, calls[0])
    finally:
        loaded.close()
    assert compare_results("exir", expected, got, "call[0]", check_inputs=True) == []
    got.inputs_after[0] = got.inputs_after[0] + 1  # the mutation came back wrong
    assert compare_results("exir", expected, got, "call[0]") == []
    (d,) = compare_results("exir", expected, got, "call[0]", check_inputs=True)
    assert d.kind == "exir.runtime-result" and d.data == {"input": 0}


# ---------------------------------------------------------------------------------------
# Number inputs: specialized by export, another value is outside the contract


NUMBER_PROGRAMS = {
    "scale": "return x * n",
    "size": "return x.new_zeros(n) + x.sum()",
    "slice_bound": "return x[:n] * 2",
}


@pytest.mark.parametrize("name", sorted(NUMBER_PROGRAMS))
def test_a_number_input_is_part_of_the_contract(name):
    report = run(f"""
import torch
def program(x, n):
    {NUMBER_PROGRAMS[name]}
def calls():
    return [(torch.randn(4, 3), 3), (torch.randn(6, 3), 3), (torch.randn(5, 3), 4)]
""")
    assert report.skipped is None and report.divergences == [], [str(d) for d in report.divergences]
    assert report.details["runtime"] == "pip runtime"
    assert report.counters["calls-checked"] == 2
    assert report.counters["call-outside-contract"] == 1
    assert report.details["outside_contract"] == ["call[2]: input n=4, exported as the constant 3"]
    assert report.counters["tensors-checked"] > 0


def test_a_float_input_is_part_of_the_contract():
    report = run("""
import torch
def program(x, f):
    return x * f, x + 1
def calls():
    return [(torch.randn(4, 3), 0.5), (torch.randn(6, 3), 0.5), (torch.randn(5, 3), 1.5)]
""")
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["call-outside-contract"] == 1
    assert "input f=1.5, exported as the constant 0.5" in report.details["outside_contract"][0]
    # executorch 1.5.1's binding takes the float; 1.0.1's cannot (counted, not compared)
    checked = report.counters["calls-checked"]
    assert checked == 2 and report.counters["runtime-input-unsupported"] in (0, checked)


def test_the_runtime_is_fed_the_inputs_its_method_declares():
    b = build(lambda x, n: x * n, (torch.randn(4, 3), 3), {0: {0: (2, 6)}})
    assert [str(a) for a in b.ep.graph_signature.user_inputs] == ["x", "3"]
    loaded = LoadedProgram(b.buffer)
    try:
        flat = loaded.inputs((torch.randn(4, 3), 3))
        assert len(flat) == loaded.num_inputs
        got = run_on_runtime(loaded, b.et_program, (torch.ones(4, 3), 3))
        assert torch.equal(got.outputs[0], torch.full((4, 3), 3.0))
        assert got.inputs_after[1] == 3  # eager's records keep the number too
    finally:
        loaded.close()
