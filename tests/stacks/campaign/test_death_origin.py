"""Process deaths get an origin (issue #47, item 4), on the real stack.

Ground truth: the registered amax abort (corpus/executorch_amax_empty_abort.py, stock
ExecuTorch) and the planner liveness fault (tests/faults/planner_list_operand_lifetime.py),
whose SIGSEGV program below was found by a fault-benchmark night (seed 1, 2026-12-07).
Each is re-run as crash confirmation re-runs it (fuzz.campaign.triage.local_rerun: a fresh
`python -m fuzz.outcome` with faulthandler on and announcements read back).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fuzz.campaign.findings import Finding
from fuzz.campaign.supervisor import Supervisor
from fuzz.campaign.triage import Triage, local_rerun
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from tests.cover.campaign.test_campaign_parts import _settings

pytestmark = pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler: no native stacks"
)

ROOT = Path(__file__).resolve().parents[3]

SEGFAULT_UNDER_LIVENESS_FAULT = """import torch


def program(x0, x1, x2):
    v3 = torch.neg(x0)
    v4 = v3 * x1
    v5 = v3[torch.remainder(torch.arange(x2), v3.shape[0])]
    return (v4, v5,)


def calls():
    return [(torch.randn(1, 3, 3), 0, 2,), (torch.randn(1, 3, 3), 0, 2,)]


DIMS = {'x0': {0: (1, 7), 1: (3, 8), 2: (3, 7)}}
"""


def _confirmed(tmp_path: Path, source: str, plugins: tuple[str, ...] = ()) -> Finding:
    sup = Supervisor(_settings(tmp_path, lanes=("exir",), fixes="on", plugins=plugins))
    d = {
        "kind": "exir.crash",
        "stage": "process",
        "details": "the worker process died",
        "device": "cpu",
        "data": {},
        "lane": "exir",
        "bucket": "exir.crash@process#death",
    }
    f = Finding(d["bucket"], source, [d], False, "worker-0.0", crash=True)
    Triage(sup, CorpusIndex(), DirectoryCorpus(tmp_path / "cases")).confirm_crash(f)
    assert f.confirmation.startswith("reproduced: the re-run died too"), f.confirmation
    return f


def test_an_abort_in_a_kernel_is_located_at_its_op(tmp_path):
    source = (ROOT / "corpus" / "executorch_amax_empty_abort.py").read_text()
    f = _confirmed(tmp_path, source)
    facts = f.divergences[0]["data"]["facts"]
    assert facts["died_in"] == "amax_out"
    assert facts["runtime_origin"] == "aten.amax.default:died"


def test_a_death_under_a_liveness_fault_carries_the_plan_divergence_that_explains_it(tmp_path):
    f = _confirmed(
        tmp_path, SEGFAULT_UNDER_LIVENESS_FAULT, ("tests.faults.planner_list_operand_lifetime",)
    )
    crash, *plan = f.divergences
    assert "SIGSEGV" in f.confirmation
    assert crash["data"]["facts"].get("died_in"), crash["data"]["facts"]
    assert plan and {d["kind"] for d in plan} == {"exir.overlap"}
    assert all("lifetime-short" in d["data"]["facts"]["plan"] for d in plan)


def test_without_the_fault_the_program_does_not_die(tmp_path):
    sup = Supervisor(_settings(tmp_path, lanes=("exir",), fixes="on"))
    rc, hung, *_ = local_rerun(sup)(SEGFAULT_UNDER_LIVENESS_FAULT, "exir", "cpu")
    assert (rc, hung) == (0, False)
