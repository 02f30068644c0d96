"""Run one case: eager, then the chosen lanes, and confirm what diverges (`run_case`).

This is the only place that knows the order of things: materialize the calls (seeded),
run the eager reference, run each lane, set aside divergences the corpus knows, re-run
every lane that diverged otherwise and keep only divergences that reproduce, then let the
lane annotate them (the Thunder control). Generation, the corpus and reporting sit
outside (the corpus comes in as the `known` callable).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

import torch

from fuzz.backends.base import LaneReport
from fuzz.backends.eager import run_eager
from fuzz.backends.registry import get_lane
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.facts import attach_facts
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


Known = Callable[[Divergence], list[str]]


def _mark_known(divergences: list[Divergence], known: Known | None) -> list[Divergence]:
    """The divergences, each registered bug marked with data["known_as"] (its corpus cases)."""
    if known is None:
        return divergences
    out = []
    for d in divergences:
        names = known(d)
        out.append(dataclasses.replace(d, data=d.data | {"known_as": names}) if names else d)
    return out


def _set_aside_imprecision(report: LaneReport) -> None:
    """Drop the half-precision mismatches the float64 reference judged no worse than eager
    (fuzz.oracles.results.within_eager_error), counted as "within-eager-error", and the
    mismatches of outputs whose eager value rounding decides (`ill_conditioned`),
    counted as "ill-conditioned"."""
    for flag, counter in (
        ("within_eager_error", "within-eager-error"),
        ("ill_conditioned", "ill-conditioned"),
    ):
        imprecise = [d for d in report.divergences if d.data.get(flag)]
        if imprecise:
            report.counters[counter] += len(imprecise)
            report.divergences = [d for d in report.divergences if d not in imprecise]


def is_known(d: Divergence) -> bool:
    return bool(d.data.get("known_as"))


def run_case(
    case: Case,
    lanes: Sequence[str] = DEFAULT_LANES,
    devices: Sequence[str] | None = None,
    seed: int = 0,
    confirm: bool = True,
    known: Known | None = None,
) -> CaseResult:
    """Run `case` on every (lane, device) it allows.

    `known(divergence)` names the corpus cases whose registered bug a divergence shows
    (fuzz.corpus.CorpusIndex.known_as); such divergences are marked (data["known_as"]) and
    cost nothing more. For the others: with `confirm`, the lane runs again from scratch and
    only divergences seen both times are kept (the rest go to `flaky`); then a lane with an
    `annotate` step (the Thunder lane's default-cache control) annotates them, and they are
    asked about again (a registered bug may be recognised by what the annotation says)."""
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
            # A generated program is valid by construction: eager raising at one of its
            # calls is a generator rule bug, and a call both raise at checks nothing
            # (campaign report, "eager raised").
            if raised := sum(r.error is not None for r in reference):
                report.counters["eager-raised"] += 1
                report.counters["eager-raised-calls"] += raised
            _set_aside_imprecision(report)
            attach_facts(report, calls)  # what registered bugs are recognised by
            report.divergences = _mark_known(report.divergences, known)
            new = [d for d in report.divergences if not is_known(d)]
            if confirm and new:
                t0 = time.perf_counter()
                again = lane.run(case, materialize(case, seed, device), reference, device)
                report.timings["confirm"] += time.perf_counter() - t0
                seen = _signature(again)
                gone = [d for d in new if (d.kind, d.stage) not in seen]
                if gone:
                    flaky.append(dataclasses.replace(report, divergences=gone))
                    report.divergences = [d for d in report.divergences if d not in gone]
            annotate = getattr(lane, "annotate", None)
            if annotate is not None and any(not is_known(d) for d in report.divergences):
                t0 = time.perf_counter()
                annotate(case, calls, reference, device, report)
                report.timings["control"] += time.perf_counter() - t0
                report.divergences = _mark_known(report.divergences, known)
            if n_known := sum(map(is_known, report.divergences)):
                report.counters["known-divergences"] += n_known
            reports.append(report)
    return CaseResult(case, reports, flaky)
