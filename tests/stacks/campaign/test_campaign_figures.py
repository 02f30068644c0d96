"""Guards on a campaign's figures that depend on no clock (issue #45): seeded campaigns of
a fixed number of programs (benchmarks/fixes_on_campaign.py, every divergence confirmed
and asked of the corpus), per lane.

* The false-new rate: with the fixes on, every divergence of these programs is a
  registered upstream bug (none unrecognised); with them off too (the stock Thunder
  cache's bug, #1525, is registered).
* The share of the programs that show each registered bug the generator is known to
  reach, at least `FLOOR` of it (about half what was measured on 2026-12-06: a
  generator change that stops drawing a bug's programs shows here the day it lands).
* The skip rate: at most the share a night reports as a blind spot (SKIP_RATE_LIMIT).

The figures measured: benchmarks/RESULTS.md (current figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.campaign.report import SKIP_RATE_LIMIT

ROOT = Path(__file__).resolve().parents[3]
SEED = 2026
# (lane, fixes, programs) -> {corpus case: least share of the programs that show its bug}
CAMPAIGNS = {
    ("exir", "on", 60): {
        # measured 40/60: the runtime checks the numel only, and most programs are dynamic
        "executorch_runtime_per_dim_bounds": 1 / 3,
        # measured 7/60: export's guards beyond the ranges
        "executorch_runtime_unchecked_guards": 1 / 20,
    },
    ("thunder", "on", 100): {},
    # measured 20/100: the stock symbolic-values cache's unsound hits (#1525)
    ("thunder", "off", 100): {"thunder_symbolic_cache_shape_branch": 1 / 10},
    # the new lanes, once their first 1,000-program campaigns were triaged (2026-12-07)
    ("xnnpack", "on", 60): {},
    ("thunderfx", "on", 100): {},
    ("thunderprims", "on", 100): {},
}

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("lane", "fixes", "programs"), list(CAMPAIGNS), ids=lambda v: str(v))
def test_a_seeded_campaign_files_nothing_new_and_keeps_reaching_its_bugs(
    lane, fixes, programs, tmp_path
):
    out = tmp_path / "figures.json"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "fixes_on_campaign.py"), "--lane", lane]
    cmd += ["--examples", str(programs), "--seed", str(SEED), "--fixes", fixes]
    cmd += ["--out", str(tmp_path / "new"), "--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["programs"] == programs
    assert figures["skipped"] / programs <= SKIP_RATE_LIMIT, f"{figures['skipped']} skipped"
    assert figures["unrecognised_programs"] == 0, (
        f"false new findings: {figures['unrecognised_buckets']} "
        f"(the programs are in {tmp_path / 'new'})"
    )
    shown = {Path(case).stem: n for case, n in figures["programs_by_registered_bug"].items()}
    for case, floor in CAMPAIGNS[(lane, fixes, programs)].items():
        share = shown.get(case, 0) / programs
        assert share >= floor, f"{case}: {share:.2f} of the programs, at least {floor:.2f}"
