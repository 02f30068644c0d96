"""Property tests: generated programs through each lane, sharded by lane and device so
`pytest -n auto` can spread them. With the fixes on, no lane may report a divergence of
the kinds our fixes are about: cache soundness (Thunder), planned memory and aliasing
(EXIR). Known upstream bugs of other kinds (runtime results, crashes, unchecked input
contracts) are registered in corpus/ and are not what these properties check.

Example counts come from the Hypothesis profile (fuzz/settings.py: dev locally, ci in CI,
derandomized).
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given

import fixes
from fuzz.engine import run_case
from fuzz.strategies import cases

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]

# Planned memory and aliasing: what the EXIR lane must get right on the fixed stack.
EXIR_PLAN_KINDS = {
    "exir.spec-meta",
    "exir.under-allocation",
    "exir.bound-loss",
    "exir.overlap",
    "exir.aliasing",
}


def known_upstream(d) -> bool:
    """Registered upstream bugs these properties tolerate (each is a corpus case)."""
    # corpus/executorch_unbacked_bound_one_planned_two.py: an unbacked size bounded by 1
    # is planned as 2 elements (size-oblivious upper bound); over-allocation, not unsound.
    return d.kind == "exir.bound-loss" and d.data.get("needed") == 1 and d.data.get("planned") == 2


def _require(fix: str):
    if fixes.active().get(fix) not in ("applied", "upstream"):
        pytest.skip(f"needs --fixes with {fix} (active: {fixes.active()})")


def cache_divergences(result):
    """Unsound hits, and wrong results that the default cache does not share (a wrong
    result the control reproduces is a Thunder bug, not a cache bug)."""
    return [
        d
        for d in result.divergences
        if d.kind == "thunder.unsound-hit"
        or (d.kind == "thunder.wrong-result" and d.data.get("control") == "agrees with eager")
    ]


@pytest.mark.parametrize("device", DEVICES)
@given(generated=cases(lanes=("thunder",)))
def test_thunder_symbolic_cache_is_sound_with_fixes(device, generated):
    _require("thunder-symbolic-cache")
    result = run_case(generated.case, lanes=("thunder",), devices=(device,))
    found = cache_divergences(result)
    assert not found, "\n".join(map(str, found)) + "\n" + generated.source


@pytest.mark.parametrize("device", DEVICES)
@given(generated=cases(lanes=("exir",), max_ops=6))
def test_exir_plans_memory_and_aliasing_soundly_with_fixes(device, generated):
    _require("executorch-specprop")
    result = run_case(generated.case, lanes=("exir",), devices=(device,))
    found = [d for d in result.divergences if d.kind in EXIR_PLAN_KINDS and not known_upstream(d)]
    assert not found, "\n".join(map(str, found)) + "\n" + generated.source
