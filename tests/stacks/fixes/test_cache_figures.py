"""Guards on the fixed Thunder cache's figures that depend on no clock (issue #45).

On programs drawn as a default night's first worker draws them (benchmarks/draws.py
`night_draws`, Hypothesis seed `SEED`), the Thunder lane runs each program with the stock
symbolic-values cache and with the `thunder-symbolic-cache` fix, each in a process of its
own (the fix is process-wide), through `benchmarks/bench_thunder_cache.py`:

* the fix must miss no more legal hits per program than the stock cache, plus `SLACK`
  (a missed legal hit is a miss whose trace an entry of the cache already has: a
  recompilation the stock cache would not make, for nothing);
* the fix must serve no unsound hit (a hit whose traces differ from a fresh trace's).

And the guard must fire on a real regression: with one extra kind of decision replayed
(tests/faults/recorder_exact_floats.py: the exact value of every number
`math.isfinite` sees, as before 2026-12-06), the same programs miss more than the guard
allows. The figures of the current code: benchmarks/RESULTS.md (current figures).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fixes

ROOT = Path(__file__).resolve().parents[3]
SEED, PROGRAMS, SLACK = 1, 150, 0.01

pytestmark = pytest.mark.slow


def _figures(mode: str, plugin: str | None = None) -> dict:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_thunder_cache.py"), "--child", mode]
    cmd += ["--child-generated", "--night", "--programs", str(PROGRAMS), "--seed", str(SEED)]
    cmd += ["--plugin", plugin] if plugin else []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("FUZZ_FIXES", None)
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("GENERATED ")][-1]
    return json.loads(line[len("GENERATED ") :])


def _per_program(figures: dict) -> float:
    return figures.get("missed-legal-hits", 0) / figures["programs"]


@pytest.fixture(scope="module")
def stock():
    if fixes.state_for("thunder-symbolic-cache").state != "applies":
        pytest.skip("the fix covers lightning-thunder 0.2.6 only")
    return _figures("symbolic-stock")


def test_the_fix_misses_no_more_legal_hits_than_stock_and_serves_no_unsound_hit(stock):
    fixed = _figures("symbolic-fixed")
    assert fixed["programs"] == stock["programs"] == PROGRAMS
    assert fixed.get("unsound-hits", 0) == 0, fixed
    assert stock.get("unsound-hits", 0) > 0, stock  # the stock bug (#1525) is drawn
    assert _per_program(fixed) <= _per_program(stock) + SLACK, (fixed, stock)


def test_the_guard_fails_when_the_fix_replays_one_more_kind_of_decision(stock):
    faulty = _figures("symbolic-fixed", "tests.faults.recorder_exact_floats")
    assert faulty.get("unsound-hits", 0) == 0  # over-specialised, still sound
    assert _per_program(faulty) > _per_program(stock) + SLACK, (faulty, stock)
