"""Every blind spot is visible, and coverage counts only what was checked (issue #17):
each blind spot of fuzz.campaign.report fires past its limit (and the campaign exits 3)
and stays quiet under it, with its figures in report.md either way; an oracle's own
exception in the EXIR lane is counted and reaches the campaign's stats; a to_executorch
error that names a missing bound is a skip only with proof of an unbounded size; a
program no call of which a lane checked does not count for that lane's coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.campaign import report_md
from fuzz.campaign.protocol import Example, Hello, Start
from fuzz.campaign.report import (
    NO_FUZZ_KERNELS_LIMIT,
    ORACLE_ERROR_SHARE_LIMIT,
    OUTSIDE_CONTRACT_LIMIT,
    UNCHECKED_SHARE_LIMIT,
    UNMAPPED_SHARE_LIMIT,
    blind_spots,
    build_report,
)
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.stats import CampaignStats
from fuzz.campaign.supervisor import Supervisor
from tests.cover.campaign.test_campaign_parts import _settings as campaign_settings
from tests.stacks.exir.test_exir_limits import NO_FINITE_BOUND


def _report(tmp_path: Path, lanes, records, unavailable=None) -> dict:
    """build_report of a campaign whose worker sent one Example per lane record."""
    sup = Supervisor(campaign_settings(tmp_path, lanes=tuple(lanes)))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, unavailable or {}, sup.harness))
    for n, lane_records in enumerate(records, start=1):
        sup.on_message(slot, Example(n, "explore", 0.1, 1.0, lanes=lane_records))
    return build_report(sup)


def _exir(**counters) -> dict:
    return {"exir/cpu": {"kinds": [], "counters": counters, "skipped": None}}


def _thunder(checked: int) -> dict:
    counters = {"calls-checked": checked, "hits": 1, "misses": 1}
    return {"thunder/cpu": {"kinds": [], "counters": counters, "skipped": None}}


def _whats(doc: dict) -> list[str]:
    return [b["what"] for b in doc["blind_spots"]]


# Over and under each limit: (lanes, lane records, the blind spot).
CASES = {
    "oracle errors": (
        ("exir",),
        [_exir(**{"calls-checked": 2, "oracle-error": 1})] + [_exir(**{"calls-checked": 2})] * 9,
        [_exir(**{"calls-checked": 2, "oracle-error": 1})] + [_exir(**{"calls-checked": 2})] * 59,
    ),
    "no call checked": (
        ("exir",),
        [_exir(**{"call-outside-contract": 1})] * 3,
        [_exir(**{"call-outside-contract": 1})] * 2 + [_exir(**{"calls-checked": 3})] * 6,
    ),
    "programs with no call checked": (
        ("thunder",),
        [_thunder(0)] * 2 + [_thunder(3)] * 2,
        [_thunder(0)] + [_thunder(3)] * 4,
    ),
    "outside-contract rate": (
        ("exir",),
        [_exir(**{"calls-checked": 2, "call-outside-contract": 3})],
        [_exir(**{"calls-checked": 3, "call-outside-contract": 2})],
    ),
    "unmapped share": (
        ("exir",),
        [_exir(**{"calls-checked": 1, "tensors-checked": 6, "tensors-unmapped": 4})],
        [_exir(**{"calls-checked": 1, "tensors-checked": 9, "tensors-unmapped": 1})],
    ),
    "fuzz:: ops not run": (
        ("exir",),
        [_exir(**{"calls-checked": 1, "runtime-static-no-fuzz-kernels": 1})] * 2
        + [_exir(**{"calls-checked": 1})] * 8,
        # static for want of the stack's own kernels is counted, not a blind spot
        [_exir(**{"calls-checked": 1, "runtime-static-no-fuzz-kernels": 1})]
        + [_exir(**{"calls-checked": 1, "runtime-static-only": 1})] * 5
        + [_exir(**{"calls-checked": 1})] * 9,
    ),
}


@pytest.mark.parametrize("what", sorted(CASES))
def test_each_blind_spot_fires_past_its_limit_and_the_campaign_exits_3(tmp_path, what):
    lanes, over, under = CASES[what]
    doc = _report(tmp_path / "over", lanes, over)
    assert what in _whats(doc), doc["blind_spots"]
    assert doc["exit"] == 3
    spot = next(b for b in doc["blind_spots"] if b["what"] == what)
    assert "## Blind spots" in render_markdown(doc)
    assert f"{spot['lane']}**: {what} {spot['value']}" in render_markdown(doc)
    doc = _report(tmp_path / "under", lanes, under)
    assert doc["blind_spots"] == [] and doc["exit"] == 0
    # The figures are in report.md under the limits too, a line per lane.
    assert f"Checked on {lanes[0]}/cpu:" in render_markdown(doc)


def test_the_limits_are_the_documented_ones():
    assert (ORACLE_ERROR_SHARE_LIMIT, UNCHECKED_SHARE_LIMIT) == (0.02, 0.25)
    assert (OUTSIDE_CONTRACT_LIMIT, UNMAPPED_SHARE_LIMIT) == (0.5, 0.25)
    assert NO_FUZZ_KERNELS_LIMIT == 0.1


def test_an_oracle_error_under_its_limit_is_shown_with_its_count(tmp_path):
    _, _, under = CASES["oracle errors"]
    doc = _report(tmp_path, ("exir",), under)
    assert doc["checked"]["exir/cpu"]["oracle_errors"] == 1
    assert "oracle errors 1 in 1 program(s) (1.7%)" in render_markdown(doc)


def test_the_programs_the_runtime_cannot_run_show_with_their_edge_result_calls(tmp_path):
    static = {"calls-checked": 2, "runtime-static-only": 1, "calls-edge-result": 2}
    doc = _report(tmp_path, ("exir",), [_exir(**static)] * 3 + [_exir(**{"calls-checked": 2})])
    checked = doc["checked"]["exir/cpu"]
    assert (checked["runtime_static_programs"], checked["edge_result_calls"]) == (3, 6)
    assert (
        "static checks only (no runtime kernel) 3 (75.0%), their edge program's result "
        "compared at 6 calls" in render_markdown(doc)
    )


def test_a_lane_asked_for_that_ran_nothing_is_a_blind_spot(tmp_path):
    doc = _report(tmp_path / "a", ("thunder", "exir"), [_thunder(2)])
    assert _whats(doc) == ["no program ran"] and doc["blind_spots"][0]["lane"] == "exir/cpu"
    assert doc["exit"] == 3
    why = "the exir lane is not installed"
    doc = _report(tmp_path / "b", ("thunder", "exir"), [_thunder(2)], {"exir/cpu": why})
    assert doc["blind_spots"][0]["why"] == why
    skipped = {"exir/cpu": {"kinds": [], "counters": {}, "skipped": "export refused: x"}}
    doc = _report(tmp_path / "c", ("exir",), [skipped])
    assert "no program ran" in _whats(doc) and "skip rate" in _whats(doc)
    doc = _report(tmp_path / "d", ("thunder", "exir"), [_thunder(2), _exir(**{"calls-checked": 1})])
    assert doc["blind_spots"] == [] and doc["exit"] == 0


def test_a_lane_that_does_not_count_its_calls_is_not_called_unchecked():
    """A plugin or test lane without a calls-checked counter (tests/crash_ops.py) has no
    "no call checked" blind spot; the EXIR lane always counts (missing means none)."""
    plain = {"programs": 3, "ran": 3, "skipped": {}, "counters": {"hits": 2}}
    assert blind_spots({"lanes": {"thunder/cpu": plain}}) == []
    assert [b["what"] for b in blind_spots({"lanes": {"exir/cpu": plain}})] == ["no call checked"]


# ---------------------------------------------------------------------------------------
# Coverage counts only what was checked


COVERAGE = {
    "families": {"view": 1},
    "ops": {"transpose": 1},
    "inputs": {"number": 1, "dtype:float32": 1, "size0": 1},
    "decisions": {"if-lt": 1},
    "dynamic": 1,
    "calls": {"size0": [0, 1]},  # only the second call has an empty dim
}


def _covered(lane: str, rec: dict) -> dict:
    stats = CampaignStats()
    stats.add_example(Example(1, "explore", 0.1, 1.0, lanes={lane: rec}, coverage=COVERAGE))
    return stats.coverage()[lane]


def test_a_program_no_call_of_which_was_checked_does_not_count_for_coverage():
    rec = {"kinds": ["exir.crash"], "counters": {"call-outside-contract": 2}, "skipped": None}
    block = _covered("exir/cpu", rec)
    assert block["programs"] == 0 and block["ran"] == 1
    assert block["families"] == {} and block["inputs"] == {} and block["decisions"] == {}
    assert block["dynamic"] == 0
    # An export crash: no counter at all; still none checked on the EXIR lane.
    assert _covered("exir/cpu", {"kinds": ["exir.crash"], "counters": {}})["programs"] == 0
    rec = {"counters": {"calls-checked": 0, "misses": 1}, "checked_calls": []}
    assert _covered("thunder/cpu", rec)["programs"] == 0  # Thunder raised on every call


def test_coverage_counts_the_input_classes_of_the_checked_calls_only():
    first = {"counters": {"calls-checked": 1}, "checked_calls": [0]}
    block = _covered("thunder/cpu", first)
    assert block["programs"] == 1 and block["families"] == {"view": 1}
    assert block["inputs"] == {"dtype:float32": 1, "number": 1}  # no size0: call 1 unchecked
    both = {"counters": {"calls-checked": 2}, "checked_calls": [0, 1]}
    assert _covered("thunder/cpu", both)["inputs"]["size0"] == 1
    # EXIR: export fixes a number input to the example's value; it is not covered.
    assert "number" not in _covered("exir/cpu", both)["inputs"]


def test_coverage_names_the_lane_ops_no_program_drew():
    """Ops drawn count whether or not a call was checked; the lane's other catalogue ops
    are listed as never drawn (and only that lane's: Thunder never draws EXIR-only ops)."""
    from fuzz import ops

    unchecked = _covered("exir/cpu", {"kinds": ["exir.crash"], "counters": {}})
    assert unchecked["ops"] == {}  # not checked: not counted as checked
    assert "transpose" not in unchecked["never_drawn"]  # but it was drawn
    exir = {op.name for op in ops.for_lanes(["exir"])}
    assert set(unchecked["never_drawn"]) == exir - {"transpose"}
    checked = _covered("thunder/cpu", {"counters": {"calls-checked": 1}, "checked_calls": [0]})
    assert checked["ops"] == {"transpose": 1}
    thunder = {op.name for op in ops.for_lanes(["thunder"])}
    assert set(checked["never_drawn"]) == thunder - {"transpose"}
    assert "custom_positive" not in checked["never_drawn"]  # EXIR-only: not Thunder's
    md = "\n".join(report_md._coverage({"coverage": {"thunder/cpu": checked}}))
    assert (
        f"| ops never drawn | {len(thunder) - 1}: " in md and "| ops checked | 1 distinct |" in md
    )


def test_the_worker_sends_per_call_input_classes():
    """The genome of tests/cover/generator/test_generator.py: one rank-1 tensor of size
    s0, empty at the first call only where s0 is 0."""
    from fuzz import ops
    from fuzz.calls import plan_sequence
    from fuzz.campaign.example import program_coverage
    from fuzz.program import Genome, decode
    from fuzz.strategies import make_case

    genome = Genome(inputs=((0, 2, 0, 4),), ops=((0,),), numbers=((1, 0, 0),))
    program = decode(genome, ops.for_lanes(["thunder"]))
    plans = plan_sequence(program, [(0,), (1, 2), (0, 1)], ["flip", "retype"])
    coverage = program_coverage(make_case(program, plans, lane="thunder"))
    size0 = coverage["calls"]["size0"]
    assert size0 == [int(dict(p.sizes)["s0"] == 0) for p in plans]
    assert size0[0] == 1 and coverage["inputs"]["size0"] == 1


# ---------------------------------------------------------------------------------------
# The EXIR lane on real programs

SMALL = """
import torch
def program(x):
    return (x * 2 + 1,)
def calls():
    return [(torch.randn(4, 3),), (torch.randn(6, 3),)]
LANES = ("exir",)
DIMS = {"x": {0: (2, 8)}}
"""


def _exir_run(src: str, strict: bool = False):
    from fuzz.backends.eager import run_eager
    from fuzz.backends.exir import ExirLane
    from fuzz.case import case_from_source
    from fuzz.tensors import materialize

    case = case_from_source(src, "small")
    calls = materialize(case, 0, "cpu")
    return ExirLane(strict=strict).run(case, calls, run_eager(case, calls), "cpu")


def test_an_oracle_exception_in_an_exir_check_is_counted_and_is_a_blind_spot(monkeypatch):
    from fuzz.backends.exir.checks import LaneRun
    from fuzz.campaign.example import lane_record

    def broken(self):
        raise KeyError("the check's own bug")

    monkeypatch.setattr(LaneRun, "alias_structure", broken)
    report = _exir_run(SMALL)
    assert report.counters["oracle-error"] == 1
    assert report.details["oracle_errors"][0].startswith("alias-structure: KeyError")
    assert report.counters["calls-checked"] == 2  # the other checks still ran
    assert report.details["checked_calls"] == [0, 1]
    stats = CampaignStats()
    record = lane_record(report, [])
    stats.add_example(Example(1, "explore", 0.1, 1.0, lanes={"exir/cpu": record}))
    doc = stats.to_json()
    assert doc["lanes"]["exir/cpu"]["oracle_error_programs"] == 1
    spots = blind_spots(doc)
    assert [b["what"] for b in spots] == ["oracle errors"] and spots[0]["value"] == 1.0


def test_without_the_injected_fault_the_small_program_has_no_oracle_error():
    report = _exir_run(SMALL)
    assert report.counters["oracle-error"] == 0 and report.counters["calls-checked"] == 2


UNBOUNDED = NO_FINITE_BOUND  # the masked_select program tests/stacks/exir/test_exir_limits.py uses


def test_a_missing_bound_is_a_skip_with_the_proof_it_found():
    """masked_select (tests/stacks/exir/test_exir_limits.py): its size is unbacked, with no finite
    upper bound (nonzero's is bounded by its input's numel); the skip names a tensor
    that proves it."""
    report = _exir_run(UNBOUNDED, strict=True)
    assert report.divergences == [], report.divergences
    assert report.skipped and report.skipped.startswith("no finite upper bound: masked_select")
    assert report.details["unbounded"] and report.counters["unsupported-skip"] == 1


def test_a_missing_bound_message_without_proof_is_a_crash(monkeypatch):
    """Every size of SMALL is bounded (x's rows by DIMS): a to_executorch error in the
    words of a missing bound is then not a limit but exir.crash."""
    import fuzz.backends.exir.pipeline as pipeline

    def unbounded_says_the_planner(edge, algo="greedy", probe=None):
        raise RuntimeError("mem_offset 7 does not fit in 64 bits")

    monkeypatch.setattr(pipeline, "to_executorch", unbounded_says_the_planner)
    report = _exir_run(SMALL, strict=True)
    assert report.skipped is None
    assert [(d.kind, d.stage) for d in report.divergences] == [("exir.crash", "to_executorch")]
    assert report.details["unbounded"] == []


def test_the_thunder_lane_counts_the_calls_it_checked():
    """Two calls Thunder returns from (checked) and one that raises in eager and in
    Thunder alike (compared, but nothing ran: not counted for coverage)."""
    from fuzz.case import case_from_source
    from fuzz.case_runner import run_case

    src = """
import torch
def program(x, y):
    return (x + y,)
def calls():
    return [(torch.randn(2, 3), torch.randn(3)), (torch.randn(4, 3), torch.randn(3)),
            (torch.randn(4, 3), torch.randn(5))]
LANES = ("thunder",)
"""
    (report,) = run_case(case_from_source(src, "thunder_calls"), ["thunder"], ["cpu"]).reports
    assert report.skipped is None and report.divergences == [], report.divergences
    assert report.counters["calls-checked"] == 2
    assert report.details["checked_calls"] == [0, 1]


def test_the_mismatches_the_float64_call_set_aside_are_shown_with_their_counts(tmp_path):
    records = [_exir(**{"calls-checked": 2, "within-eager-error": 1, "ill-conditioned": 2})]
    doc = _report(tmp_path, ("exir",), records * 4)
    assert doc["checked"]["exir/cpu"]["ill_conditioned"] == 8
    text = render_markdown(doc)
    assert "set aside by the float64 call: 4 within eager's error, 8 decided by rounding" in text


def test_the_outside_contract_calls_are_counted_by_why(tmp_path):
    """report.json and report.md say which of export's specializations left calls out
    (counters "call-outside-contract:<kind>", fuzz.backends.exir.contract.reason_kind)."""
    why = {"call-outside-contract:number": 3, "call-outside-contract:dim-range": 1}
    record = _exir(**{"calls-checked": 2, "call-outside-contract": 4} | why)
    doc = _report(tmp_path, ("exir",), [record, record])
    assert doc["checked"]["exir/cpu"]["outside_contract_by"] == {"dim-range": 2, "number": 6}
    assert "outside-contract rate 66.7% (number 6, dim-range 2)" in render_markdown(doc)


def test_programs_set_aside_as_registered_bugs_keep_an_example_to_audit(tmp_path):
    """No case file holds a program recognised as a registered bug while exploring, so
    report.json keeps the shortest one per corpus case (its source, from `Start`)."""
    sup = Supervisor(campaign_settings(tmp_path, lanes=("exir",)))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    sources = ["x = long_program()\n", "x = short()\n", "x = not_known()\n"]
    known = [["corpus/a.py"], ["corpus/a.py", "corpus/b.py"], []]
    for n, (source, cases) in enumerate(zip(sources, known), start=1):
        sup.on_message(slot, Start(n, "explore", str(n), source))
        rec = {"kinds": ["exir.crash"] if cases else [], "known_as": cases, "skipped": None}
        sup.on_message(slot, Example(n, "explore", 0.1, 1.0, lanes={"exir/cpu": rec}))
    lane = build_report(sup)["stats"]["lanes"]["exir/cpu"]
    assert lane["known_as"] == {"corpus/a.py": 2, "corpus/b.py": 1}
    assert lane["known_examples"] == {"corpus/a.py": sources[1], "corpus/b.py": sources[1]}
