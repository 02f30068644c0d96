"""The first value Thunder gets wrong (fuzz/backends/thunder/origin.py), and findings of
one origin merged (fuzz/campaign/causes.py rule (e)). Ground truth: the fault benchmark's
flip fault (tests/faults/thunder_flip_size1.py: flip does nothing when a flipped dim
has size 1), installed for one test and uninstalled after it. A fault-benchmark night
filed it twice, once under a size-1 broadcast and once without (2026-12-04, seed 2)."""

from __future__ import annotations

import importlib
import textwrap

import pytest

from fuzz.campaign.causes import same_cause
from fuzz.campaign.findings import Finding
from fuzz.case import case_from_source
from fuzz.case_runner import run_case

# The flip meets a size-1 dim only at call 1, through a broadcast: the mul before it is right.
BROADCAST = """
import torch

def program(x, y):
    a = x * 2.0
    b = torch.flip(a * y, (0, 1))
    c = b.sum(0)
    return (c + 1.0,)

def calls():
    return [(torch.randn(1, 4), torch.randn(3, 1)), (torch.randn(1, 4), torch.randn(1, 1))]
"""
# A static size-1 dim, no broadcast, other ops around it.
STATIC_ONE = """
import torch

def program(x):
    n = x.narrow(0, 0, 2)
    f = torch.flip(n, (1, 2))
    return (f.abs(), n.sum())

def calls():
    return [(torch.randn(3, 1, 5),)]
"""
# Written in place after it is assigned: `y` is compared as assigned (a clone of x, right),
# so the origin is the flip, not the line that assigned y.
IN_PLACE = """
import torch

def program(x):
    y = x.clone()
    y.mul_(2.0)
    f = torch.flip(y, (0, 1))
    return (f,)

def calls():
    return [(torch.randn(3, 1),)]
"""

# A bfloat16 product of 36 factors before the flip: Thunder multiplies in float32 and
# rounds once, eager's CPU kernel rounds each step, so `p` departs from eager by more than
# the bfloat16 tolerance, though Thunder is the closer to float64 (the float64 referee
# sets the final output's such departure aside, fuzz.oracles.results). Seeded: at this
# seed `p` departs.
ROUNDED_FIRST = """
import torch

def program(x):
    p = x.prod(0)
    f = torch.flip(p.unsqueeze(0), (0, 1))
    return (f * 2.0,)

def calls():
    g = torch.Generator().manual_seed(3)
    return [((1.0 + 0.2 * torch.randn(36, 6, generator=g)).to(torch.bfloat16),)]
"""


@pytest.fixture
def flip_fault():
    module = importlib.import_module("tests.faults.thunder_flip_size1")
    module.install()
    try:
        yield
    finally:
        module.uninstall()


def _wrong_results(source: str, name: str) -> list:
    case = case_from_source(textwrap.dedent(source), name)
    (report,) = run_case(case, lanes=("thunder",), devices=("cpu",)).reports
    return [d for d in report.divergences if d.kind == "thunder.wrong-result"]


def _finding(name: str, source: str, divergences: list) -> Finding:
    bucket = f"thunder.wrong-result@call#{name}"
    return Finding(
        bucket, source, [d.to_json() | {"bucket": bucket} for d in divergences], True, "w0"
    )


def test_a_faulty_lowering_is_the_origin_of_its_wrong_results_and_merges_them(flip_fault):
    found = {}
    for name, source in (("broadcast", BROADCAST), ("static", STATIC_ONE)):
        wrong = _wrong_results(source, name)
        assert wrong, f"the flip fault shows in {name}"
        assert {d.data["facts"].get("origin") for d in wrong} == {"torch.flip:values"}, name
        found[name] = _finding(name, source, wrong)
    why = same_cause(found["broadcast"], found["static"], lambda f: f.source)
    assert why == "the same first wrong node (torch.flip values)"


def test_a_value_written_in_place_later_is_compared_as_assigned(flip_fault):
    wrong = _wrong_results(IN_PLACE, "in_place")
    assert wrong and {d.data["facts"].get("origin") for d in wrong} == {"torch.flip:values"}


def test_a_value_that_departs_by_rounding_alone_is_not_the_origin(flip_fault):
    """The product departs first, but by rounding (the float64 referee: Thunder is no
    farther from float64 than eager): the origin is the flip that is wrong. Without the
    referee the product was the origin, and it would have merged this finding with any
    other that rounds a bfloat16 product first."""
    wrong = _wrong_results(ROUNDED_FIRST, "rounded_first")
    assert wrong and {d.data["facts"].get("origin") for d in wrong} == {"torch.flip:values"}


def test_a_rounding_departure_is_there_to_be_set_aside():
    """The premise of the test above: Thunder's bfloat16 product departs from eager's past
    the bfloat16 tolerance, and is within eager's error of the float64 product."""
    from fixes.compat_thunder_named_tensor import import_thunder
    from fuzz.oracles.results import value_mismatch, within_eager_error

    case = case_from_source(textwrap.dedent(ROUNDED_FIRST), "rounded_premise")
    (x,) = case.module.calls()[0]
    eager, thunder = x.prod(0), import_thunder().jit(lambda t: t.prod(0))(x)
    assert value_mismatch(eager, thunder) is not None
    assert within_eager_error(eager, thunder, x.double().prod(0))


def test_without_the_fault_the_programs_agree_with_eager():
    for name, source in (
        ("broadcast", BROADCAST),
        ("static", STATIC_ONE),
        ("rounded", ROUNDED_FIRST),
    ):
        assert _wrong_results(source, name) == []


# Rule (f) of fuzz/campaign/causes.py, the two forms a size-deciding lowering takes under
# the symbolic-values cache (both from the flip fault's nights: seed 1 of the seventeenth
# session, seed 5 of the eighteenth). Built wrong: the size-1 call builds the trace, and a
# later call with other sizes hits and replays it.
BUILT_WRONG = """
import torch

def program(x):
    f = torch.flip(x, (1, 0))
    return (f,)

def calls():
    f64 = torch.float64
    return [(torch.randn(1, 2, 1, dtype=f64),), (torch.randn(2, 4, 2, dtype=f64),)]
"""
# Fresh trace wrong: a right trace is built first, and the size-1 call hits it (right
# values), while a fresh trace of that call, the one the default cache runs, is wrong.
FRESH_WRONG = """
import torch

def program(x):
    f = torch.flip(x, (1, 0, 2))
    return (f,)

def calls():
    return [(torch.randn(6, 2, 6),), (torch.randn(3, 1, 3),)]
"""


def _divergences(source: str, name: str) -> list:
    case = case_from_source(textwrap.dedent(source), name)
    (report,) = run_case(case, lanes=("thunder",), devices=("cpu",)).reports
    return report.divergences


def test_an_unsound_hit_that_a_wrong_trace_explains_is_that_wrong_result(flip_fault):
    """Each form files as an unsound hit; with rule (f) each merges with a plain wrong
    result of the fault (no cache hit at all), by the first wrong node."""
    plain = _wrong_results(STATIC_ONE, "static")
    assert plain
    wrong_result = _finding("static", STATIC_ONE, plain)
    for name, source in (("built", BUILT_WRONG), ("fresh", FRESH_WRONG)):
        found = _divergences(source, name)
        (hit,) = [d for d in found if d.kind == "thunder.unsound-hit"]
        bucket = f"thunder.unsound-hit@call#{name}"
        finding = Finding(
            bucket,
            source,
            [d.to_json() | {"bucket": bucket if d is hit else "other"} for d in found],
            True,
            "w0",
        )
        if name == "fresh":  # the hit's own call is what the default cache gets wrong
            assert hit.data["control"] == "diverges too", hit.data
            assert hit.data["facts"].get("origin") == "torch.flip:values", hit.data["facts"]
        why = same_cause(finding, wrong_result, lambda f: f.source)
        assert why == (
            "a wrong trace explains the cache divergence: "
            "the same first wrong node (torch.flip values)"
        ), (name, why, [d.to_json() for d in found])
