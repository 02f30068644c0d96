"""The engine: run one case through eager and the chosen lanes, and confirm what diverges.

This is the only place that knows the order of things: materialize the calls (seeded),
run the eager reference, run each lane, then re-run every lane that diverged and keep
only divergences that reproduce. Generation, the corpus and reporting sit outside.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import torch

from fuzz.backends.base import LaneReport
from fuzz.backends.eager import run_eager
from fuzz.backends.registry import get_lane
from fuzz.case import Case
from fuzz.tensors import materialize

DEFAULT_LANES = ("thunder", "exir")


def available_devices() -> tuple[str, ...]:
    return ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)


@dataclasses.dataclass
class CaseResult:
    case: Case
    reports: list[LaneReport]
    flaky: list[LaneReport] = dataclasses.field(default_factory=list)  # did not reproduce

    @property
    def divergences(self):
        return [d for r in self.reports for d in r.divergences]


def _signature(report: LaneReport) -> set[tuple[str, str]]:
    return {(d.kind, d.stage) for d in report.divergences}


def run_case(
    case: Case,
    lanes: Sequence[str] = DEFAULT_LANES,
    devices: Sequence[str] | None = None,
    seed: int = 0,
    confirm: bool = True,
) -> CaseResult:
    """Run `case` on every (lane, device) it allows. With `confirm`, a lane that diverged
    is run again from scratch and only divergences seen both times are reported."""
    reports, flaky = [], []
    for device in devices or available_devices():
        if device == "cuda" and not torch.cuda.is_available():
            continue
        calls = materialize(case, seed, device)
        t0 = time.perf_counter()
        reference = run_eager(case, calls)
        eager_time = time.perf_counter() - t0
        for name in lanes:
            lane = get_lane(name)
            if not case.runs_on(name, device):
                reports.append(LaneReport(name, device, skipped="case does not run here"))
                continue
            if (why := lane.unavailable(device)) is not None:
                reports.append(LaneReport(name, device, skipped=why))
                continue
            report = lane.run(case, calls, reference, device)
            report.timings["eager"] += eager_time
            if confirm and report.divergences:
                t0 = time.perf_counter()
                again = lane.run(case, materialize(case, seed, device), reference, device)
                report.timings["confirm"] += time.perf_counter() - t0
                seen = _signature(again)
                kept = [d for d in report.divergences if (d.kind, d.stage) in seen]
                if len(kept) < len(report.divergences):
                    flaky.append(
                        dataclasses.replace(
                            report, divergences=[d for d in report.divergences if d not in kept]
                        )
                    )
                report.divergences = kept
            reports.append(report)
    return CaseResult(case, reports, flaky)
