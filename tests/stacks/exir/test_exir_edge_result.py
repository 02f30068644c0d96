"""exir.edge-result: where the pip runtime has no kernel for an operator of the program
(static checks only), the edge program runs in eager and its result is compared with
eager's (fuzz/backends/exir/edge_run.py).

The bad case is real: the test-only fault tests/faults/logsumexp_squeeze_first.py
puts a wrong `logsumexp` decomposition into torch, which to_edge applies. The programs
also sort and take a cumprod, for which the runtime has no kernel, so before the edge
check they got no result check at all.
"""

from __future__ import annotations

import importlib
import warnings

import pytest
import torch

from fuzz.backends.eager import run_eager
from fuzz.backends.exir import ExirLane
from fuzz.case import case_from_source
from fuzz.observe import CallRecord
from fuzz.oracles.results import compare_results
from fuzz.tensors import materialize

warnings.filterwarnings("ignore")

FAULT = "tests.faults.logsumexp_squeeze_first"

STATIC_ONLY = """
import torch

def program(x):
    s = torch.sort(x, dim=-1, stable=True).values
    return (torch.logsumexp(s, dim=(0, 2)), s.cumprod(0))

def calls():
    return [(torch.randn(3, 4, 5),), (torch.randn(2, 4, 5),)]

DIMS = {'x': {0: (2, 6)}}
"""

# The same reduction, with only operators the runtime has kernels for.
RUNTIME_RUNS = """
import torch

def program(x):
    return (torch.logsumexp(x, dim=(0, 2)),)

def calls():
    return [(torch.randn(3, 4, 5),), (torch.randn(2, 4, 5),)]

DIMS = {'x': {0: (2, 6)}}
"""

# An input written in place by a program the runtime cannot run: the mutation the edge
# program returns is compared too.
MUTATES = """
import torch

def program(x, y):
    x.add_(torch.sort(y, dim=0, stable=True).values)
    return (torch.logsumexp(x, dim=(0, 1), keepdim=True),)

def calls():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4))]

DIMS = {'x': {0: (2, 6)}, 'y': {0: (2, 6)}}
"""


def _run(source: str):
    case = case_from_source(source, "edge_case")
    calls = materialize(case, 0, "cpu")
    return ExirLane(strict=True).run(case, calls, run_eager(case, calls), "cpu")


@pytest.fixture
def faulty_logsumexp():
    fault = importlib.import_module(FAULT)
    fault.install()
    try:
        yield
    finally:
        fault.uninstall()


@pytest.fixture
def stock_logsumexp():
    try:
        importlib.import_module(FAULT).uninstall()  # importing it installs it
    except ImportError:
        pass


def _edge(report):
    return [d for d in report.divergences if d.kind == "exir.edge-result"]


def test_a_static_only_program_of_the_stock_stack_agrees_on_every_call(stock_logsumexp):
    report = _run(STATIC_ONLY)
    assert report.details["runtime"].startswith("static checks only")
    assert report.counters["calls-edge-result"] == report.counters["calls-checked"] == 2
    assert _edge(report) == [], report.divergences


def test_a_wrong_decomposition_is_an_edge_result_at_its_node(faulty_logsumexp):
    report = _run(STATIC_ONLY)
    assert report.details["runtime"].startswith("static checks only")
    found = _edge(report)
    assert [(d.stage, d.details) for d in found] == [
        ("call[0]", "output 0: shape (4, 4), expected (4,)"),
        ("call[1]", "output 0: shape (4, 4), expected (4,)"),
    ]
    # located like a runtime result: the first edge node that departs from the ATen one
    origin = report.details["origin_by_call"][0]
    assert (origin["op"], origin["nature"]) == ("aten.logsumexp.default", "shape")


def test_a_program_the_runtime_runs_gets_the_runtime_result_not_the_edge_one(faulty_logsumexp):
    """One check per call: the runtime's result shows the same fault, so the edge program
    is not run too (one bug, one divergence per call)."""
    report = _run(RUNTIME_RUNS)
    assert not report.details["runtime"].startswith("static checks only")
    assert report.counters["calls-edge-result"] == 0
    kinds = {d.kind for d in report.divergences if d.stage.startswith("call[")}
    assert kinds == {"exir.runtime-result"}, report.divergences


def test_the_inputs_the_edge_program_writes_are_compared_as_the_runtime_s_are(stock_logsumexp):
    report = _run(MUTATES)
    assert report.details["runtime"].startswith("static checks only")
    assert report.counters["calls-edge-result"] == 2
    assert _edge(report) == [], report.divergences


def test_the_edge_program_raising_where_eager_returns_is_an_edge_result():
    eager = CallRecord([torch.ones(2)], None, [torch.ones(2)])
    raised = CallRecord([], "RuntimeError: shape mismatch", [torch.ones(2)])
    (d,) = compare_results("exir-edge", eager, raised, "call[1]", "cpu", check_inputs=True)
    assert (d.kind, d.details) == (
        "exir.edge-result",
        "the edge program raised RuntimeError: shape mismatch",
    )
    # both raising is agreement, as for the runtime
    assert compare_results("exir-edge", CallRecord([], "E", []), raised, "call[1]") == []
