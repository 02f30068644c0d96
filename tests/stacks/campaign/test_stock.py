"""New findings are re-confirmed on the stock stacks before they are filed
(fuzz/campaign/stock.py): one that needs our speedups is a harness bug."""

from __future__ import annotations

import textwrap

import pytest

from fuzz.campaign.findings import Finding
from fuzz.campaign.report import build_report
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.stock import judge, local_stock_rerun
from fuzz.campaign.supervisor import Supervisor
from fuzz.campaign.triage import Triage, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.procs import outcome_printed
from tests.cover.campaign.test_campaign_parts import _settings

BROADCAST = textwrap.dedent(
    """
    import torch


    def program(a, b):
        return (a + b,)


    def calls():
        return [(torch.randn(0, 3), torch.randn(1, 3))]
    """
).lstrip()


def _outcome(*kinds, status="divergence"):
    return {"status": status, "divergences": [{"kind": k} for k in kinds]}


def test_the_verdicts():
    wrong = "thunder.wrong-result"
    assert judge(wrong, False, 0, False, _outcome(wrong)) == "reproduced"
    assert judge(wrong, False, 0, False, _outcome("thunder.aliasing")) == "not reproduced"
    assert judge(wrong, False, 0, False, _outcome(status="pass")) == "not reproduced"
    assert judge(wrong, False, None, True, None) == "inconclusive"  # hung
    assert judge(wrong, False, -6, False, None) == "inconclusive"  # died
    assert judge(wrong, False, 0, False, _outcome(status="error")) == "inconclusive"
    assert judge("thunder.crash", True, -6, False, None) == "reproduced"  # died again
    assert judge("thunder.crash", True, None, True, None) == "reproduced"  # hung again
    assert judge("thunder.crash", True, 0, False, _outcome(status="pass")) == "not reproduced"
    assert outcome_printed('RUNNING\nOUTCOME {"status": "pass"}\n') == {"status": "pass"}
    assert outcome_printed("RUNNING\n") is None


def _finding(kind: str) -> Finding:
    d = {"kind": kind, "stage": "call[0]", "details": "differs", "device": "cpu", "data": {}}
    d["bucket"] = f"{kind}@call#x"
    f = Finding(d["bucket"], BROADCAST, [d], True, "worker-0.0", shrunk="yes, 1-minimal")
    f.first_source, f.first_divergences = BROADCAST, [d]
    return f


def _night(tmp_path, stock, **settings):
    sup = Supervisor(_settings(tmp_path, **settings))
    f = _finding("thunder.wrong-result")
    sup.findings[f.bucket] = f
    into = DirectoryCorpus(tmp_path / "cases")
    Triage(sup, CorpusIndex.of([into]), into, rerun=lambda *a: (0, False), stock=stock).run(
        renderer(sup)
    )
    return sup, f


def test_a_finding_only_our_speedups_show_is_a_harness_bug_and_fails_the_night(tmp_path):
    sup, f = _night(tmp_path, lambda *a: (0, False, _outcome(status="pass")))
    assert f.status == "harness-bug" and f.stock == "not reproduced with the speedups off"
    doc = build_report(sup)
    assert doc["exit"] == 1 and doc["harness_bugs"] == [f.path]
    assert doc["distinct_bugs"] == []  # not an upstream bug
    md = render_markdown(doc)
    assert "Harness bugs (do not reproduce with our speedups off" in md
    assert "On the stock stacks: not reproduced" in open(f.path).read()


def test_a_finding_the_stock_stacks_show_is_filed_as_new(tmp_path):
    sup, f = _night(tmp_path, lambda *a: (0, False, _outcome("thunder.wrong-result")))
    assert f.status == "new" and f.stock == "reproduced with the speedups off"
    assert build_report(sup)["exit"] == 1


def test_a_night_without_speedups_needs_no_stock_rerun(tmp_path):
    def never(*a):
        raise AssertionError("re-run although the night ran on the stock stacks")

    sup, f = _night(tmp_path, never, speedups="off")
    assert f.status == "new" and "speedups off" in f.stock


@pytest.mark.slow
@pytest.mark.parametrize(
    "plugin, verdict",
    [
        ("tests.speedup_only_fault", "not reproduced"),  # a buggy speedup
        ("tests.faults.thunder_broadcast_max", "reproduced"),  # a bug of the stack
    ],
)
def test_the_stock_rerun_tells_a_speedup_fault_from_a_stack_fault(tmp_path, plugin, verdict):
    sup = Supervisor(_settings(tmp_path, fixes="on", plugins=(plugin,)))
    rc, hung, outcome = local_stock_rerun(sup)(BROADCAST, "thunder", "cpu")
    assert outcome is not None, (rc, hung)
    assert judge("thunder.crash", False, rc, hung, outcome) == verdict, outcome
