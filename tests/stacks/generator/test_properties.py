"""Property tests: generated programs through each lane, sharded by lane and device so
`pytest -n auto` can spread them. With the fixes on, a lane may report only registered
bugs: every divergence, of every kind (crashes and aliasing included), must be one a
corpus case recognises (`CorpusIndex.known_as`: the same program, or a MATCHES pattern).
A divergence nobody registered is a new upstream bug to file in corpus/ or a harness bug
to fix; either way the property fails and says which.

A property that the lane never exercised proves nothing, so each test also counts the
programs the lane ran (its report not skipped, at least one call checked) and fails when
fewer than MIN_RAN of the generated programs did: a lane that skips everything cannot pass
(test_a_lane_that_skips_everything_fails_the_property shows it).

Example counts come from the Hypothesis profile (fuzz/settings.py: dev locally, ci in CI,
derandomized).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings

import fixes
from fuzz.backends.base import LaneReport
from fuzz.case_runner import CaseResult, run_case
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.strategies import cases

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]
INDEX = CorpusIndex.of([DirectoryCorpus(Path(__file__).resolve().parents[3] / "corpus")])
# The share of generated programs a lane must run for its property to count.
MIN_RAN = 0.5


def _require(fix: str):
    if fixes.active().get(fix) not in ("applied", "upstream"):
        pytest.skip(f"needs --fixes with {fix} (active: {fixes.active()})")


def ran(report: LaneReport) -> bool:
    """Whether the lane exercised the program: not skipped, at least one call checked."""
    return report.skipped is None and report.counters["calls-checked"] >= 1


def check_property(lane: str, device: str, strategy, **overrides) -> Counter:
    """Run the property over `strategy` with Hypothesis (the loaded profile's settings,
    with `overrides`), then fail unless the lane ran at least MIN_RAN of the programs.
    Returns the tally: programs generated, programs the lane ran."""
    tally: Counter = Counter()

    @given(generated=strategy)
    def only_registered_bugs(generated):
        def known(d):
            return INDEX.known_as(d.to_json(), generated.source)

        result = run_case(generated.case, lanes=(lane,), devices=(device,), known=known)
        tally["programs"] += 1
        tally["ran"] += sum(map(ran, result.reports))
        found = [d for d in result.divergences if not d.data.get("known_as")]
        assert not found, "\n".join(map(str, found)) + "\n" + generated.source

    # Its own examples and database entries per lane and device (as pytest's would be).
    inner = only_registered_bugs.hypothesis.inner_test
    inner._hypothesis_internal_add_digest = f"{lane}[{device}]".encode()
    if overrides:
        only_registered_bugs = settings(**overrides)(only_registered_bugs)
    only_registered_bugs()
    need = max(1, math.ceil(MIN_RAN * tally["programs"]))
    assert tally["ran"] >= need, (
        f"{lane}/{device}: the lane ran {tally['ran']} of {tally['programs']} generated "
        f"programs (not skipped, at least one call checked); at least {need} must, or the "
        "property passes vacuously"
    )
    return tally


@pytest.mark.parametrize("device", DEVICES)
def test_thunder_reports_only_registered_bugs_with_fixes(device):
    _require("thunder-symbolic-cache")
    check_property("thunder", device, cases(lanes=("thunder",)))


@pytest.mark.parametrize("device", DEVICES)
def test_exir_reports_only_registered_bugs_with_fixes(device):
    _require("executorch-specprop")
    check_property("exir", device, cases(lanes=("exir",), max_ops=6))


@pytest.mark.parametrize(
    "report",
    [
        LaneReport("thunder", "cpu", skipped="unsupported: everything"),
        LaneReport("thunder", "cpu"),  # not skipped, but no call checked
    ],
    ids=["skipped", "nothing-checked"],
)
def test_a_lane_that_skips_everything_fails_the_property(monkeypatch, report):
    """The guard itself: with a lane that runs nothing, the property fails (no real lane
    runs here: `run_case` is replaced, so this takes only the programs' generation)."""
    monkeypatch.setattr(
        sys.modules[__name__], "run_case", lambda case, **kw: CaseResult(case, [report])
    )
    with pytest.raises(AssertionError, match=r"the lane ran 0 of [1-9]\d* generated programs"):
        check_property("thunder", "cpu", cases(lanes=("thunder",)), max_examples=5)
