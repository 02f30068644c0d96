"""In-process exploration: draw cases, run them, stop at the first divergence.

The small, synchronous entry point used by tests and benchmarks ("does a derandomized
run of N examples find a divergence on this stack?"). The nightly job wraps the same
strategies and engine in worker processes, with shrinking and a corpus.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Sequence

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings

from fuzz.case_runner import CaseResult, run_case
from fuzz.corpus import CorpusIndex
from fuzz.defaults import MAX_OPS
from fuzz.strategies import GeneratedCase, cases


@dataclasses.dataclass
class Exploration:
    examples: int = 0
    found: tuple[GeneratedCase, CaseResult] | None = None
    counters: Counter = dataclasses.field(default_factory=Counter)
    timings: Counter = dataclasses.field(default_factory=Counter)
    skipped: int = 0

    @property
    def kinds(self) -> set[str]:
        return {d.kind for d in self.found[1].divergences} if self.found else set()


class _Found(Exception):
    pass


def explore(
    lanes: Sequence[str],
    max_examples: int,
    devices: Sequence[str] = ("cpu",),
    seed: int | None = 0,
    max_ops: int = MAX_OPS,
    confirm: bool = True,
    stop_on_first: bool = True,
    kinds: Sequence[str] | None = None,
    on_example: Callable[[GeneratedCase, CaseResult], None] | None = None,
    case_seed: int | None = None,
    corpus: CorpusIndex | None = None,
    until: Callable[[GeneratedCase, CaseResult], bool] | None = None,
) -> Exploration:
    """Run up to `max_examples` generated cases; `seed=None` means random, any int gives
    the same examples every time (seeded, no example database). `found` is the first case
    with a divergence (of one of `kinds`, when given). `on_example(generated, result)` is
    called for every case that ran (benchmarks and campaign scripts count with it);
    `case_seed` seeds each case's calls() (default: `seed`, else 0); with `corpus`, the
    divergences of bugs it registers are set aside as the nightly job does (marked
    known_as, not confirmed: fuzz.case_runner.run_case); `until(generated, result)`, when
    given, decides which case counts as found instead of `kinds`."""
    out = Exploration()

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(lanes=tuple(lanes), max_ops=max_ops))
    def run(generated):
        out.timings["generation"] += time.perf_counter() - started[0]
        out.examples += 1
        data_seed = case_seed if case_seed is not None else (seed or 0)
        known = None
        if corpus is not None:

            def known(d):
                return corpus.known_as(d.to_json(), generated.source)

        result = run_case(
            generated.case, lanes, devices, seed=data_seed, confirm=confirm, known=known
        )
        if on_example is not None:
            on_example(generated, result)
        for report in result.reports:
            out.counters.update(report.counters)
            out.timings.update(report.timings)
            out.skipped += report.skipped is not None
        out.counters.update(f"divergence:{d.kind}" for d in result.divergences)
        if (
            until(generated, result)
            if until is not None
            else any(kinds is None or d.kind in kinds for d in result.divergences)
        ):
            out.found = out.found or (generated, result)
            if stop_on_first:
                raise _Found  # (raised again when Hypothesis replays it, so never flaky)
        started[0] = time.perf_counter()

    started = [time.perf_counter()]
    try:
        (run if seed is None else hypothesis.seed(seed)(run))()
    except _Found:
        pass
    return out
