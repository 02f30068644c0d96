"""The Thunder-decompositions lane (fuzz/backends/thunderprims): Thunder's own
decompositions run on CPU, the torch executor running only their prims.

Ground truth: the fault plugin tests/faults/thunder_pad_low_high.py swaps each dim's
(low, high) pair in Thunder's core-language pad, the decomposition of `F.pad`. The
Thunder lane cannot see it (the torch executor runs `F.pad` whole); this lane can. And
the lane keeps the Thunder lane's cache-hit oracle: the stock symbolic-values cache's
registered bug (#1525) shows as `thunderprims.unsound-hit`, known through the Thunder
lane's pattern.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from fuzz.case import case_from_source
from fuzz.case_runner import run_case

PAD = """
import torch
import torch.nn.functional as F


def program(x, y):
    a = F.pad(x, (1, 2), value=-2.5)
    return (torch.tril(a) * y.sum(), a.var(0))


def calls():
    return [(torch.randn(3, 4), torch.randn(2)), (torch.randn(5, 2), torch.randn(3))]
"""


def _reports(source: str, lanes=("thunder", "thunderprims"), known=None):
    case = case_from_source(source, "case")
    return {r.lane: r for r in run_case(case, lanes=lanes, known=known).reports}


def test_the_decompositions_run_and_agree_with_eager():
    report = _reports(PAD, lanes=("thunderprims",))["thunderprims"]
    assert report.skipped is None and report.divergences == []
    assert report.counters["calls-checked"] == 2
    # pad, tril and var ran as Thunder decomposes them; arange (inside tril's
    # decomposition) has a number prims.ceil no CPU executor takes, so it ran whole.
    assert {"pad", "tril", "var"} <= set(report.details["decomposed"])
    assert report.details["claimed"] == ["arange"]


def test_the_torch_executor_is_an_always_executor_again_after_the_jit():
    from fuzz.backends.thunder.lane import _thunder

    thunder = _thunder()
    _reports(PAD, lanes=("thunderprims",))
    assert "torch" in [ex.name for ex in thunder.get_always_executors()]


def test_a_fault_in_a_decomposition_is_found_here_and_not_on_the_thunder_lane():
    fault = importlib.import_module("tests.faults.thunder_pad_low_high")
    fault.install()
    try:
        reports = _reports(PAD)
    finally:
        fault.uninstall()
    assert reports["thunder"].divergences == []
    wrong = reports["thunderprims"].divergences
    assert {(d.kind, d.stage) for d in wrong} >= {
        ("thunderprims.wrong-result", "call[0]"),
        ("thunderprims.wrong-result", "call[1]"),
    }
    # the Thunder origin (fuzz/backends/thunder/origin.py) names the first wrong value
    assert {d.data["facts"]["origin"] for d in wrong if d.kind.endswith("wrong-result")} == {
        "pad:values"
    }
    assert _reports(PAD, lanes=("thunderprims",))["thunderprims"].divergences == []


SHAPE_BRANCH = """
import torch


def program(x):
    if x.shape[0] == 2:
        return (x * 2.0,)
    return (x + 1.0,)


def calls():
    return [(torch.randn(2, 3),), (torch.randn(3, 3),)]
"""


def test_the_stock_cache_bug_is_an_unsound_hit_here_known_by_the_thunder_pattern():
    import fixes
    from fuzz.corpus import CorpusIndex, DirectoryCorpus

    index = CorpusIndex.of([DirectoryCorpus(Path(__file__).parents[3] / "corpus")])
    case = case_from_source(SHAPE_BRANCH, "shape_branch")
    with fixes.applied("off"):
        (report,) = run_case(
            case,
            lanes=("thunderprims",),
            known=lambda d: index.known_as(d.to_json(), case.source),
        ).reports
    hits = [d for d in report.divergences if d.kind == "thunderprims.unsound-hit"]
    assert [d.stage for d in hits] == ["call[1]"]
    assert [Path(n).stem for n in hits[0].data["known_as"]] == [
        "thunder_symbolic_cache_shape_branch"
    ]
    with fixes.applied("on"):
        assert _reports(SHAPE_BRANCH, lanes=("thunderprims",))["thunderprims"].divergences == []


VIEWS = """
import torch


def program(x, y):
    y.add_(1.0)
    return (x.repeat(3), x.unsqueeze(1), x.contiguous())


def calls():
    return [(torch.randn(1), torch.randn(2))]
"""


def test_output_sharing_is_not_compared_here_but_input_writes_are():
    """The torch executor runs a decomposition's view prims as views: repeat of a
    one-element tensor comes back as a view of it, contiguous() of a contiguous one as a
    copy. Eager differs both ways; the lane does not report it (module docstring)."""
    from fuzz.observe import observe_call
    from fuzz.tensors import copy_args

    case = case_from_source(VIEWS, "views")
    ((x, y),) = case.calls()
    lane = _reports(VIEWS, lanes=("thunderprims",))
    assert lane["thunderprims"].divergences == []
    from fuzz.backends.registry import get_lane

    jf = get_lane("thunderprims")._jit(case.program, "constant values")
    record = observe_call(jf, copy_args((x, y)))
    eager = observe_call(case.program, copy_args((x, y)))
    assert record.aliases != eager.aliases  # the difference the lane leaves out
    assert record.inputs_after[1].equal(eager.inputs_after[1])
