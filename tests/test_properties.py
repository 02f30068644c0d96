"""Property tests: generated programs through each lane, sharded by lane and device so
`pytest -n auto` can spread them. With the fixes on, a lane may report only registered
bugs: every divergence, of every kind (crashes and aliasing included), must be one a
corpus case recognises (`CorpusIndex.known_as`: the same program, or a MATCHES pattern).
A divergence nobody registered is a new upstream bug to file in corpus/ or a harness bug
to fix; either way the property fails and says which.

Example counts come from the Hypothesis profile (fuzz/settings.py: dev locally, ci in CI,
derandomized).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import given

import fixes
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.engine import run_case
from fuzz.strategies import cases

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]
INDEX = CorpusIndex.of([DirectoryCorpus(Path(__file__).resolve().parents[1] / "corpus")])


def _require(fix: str):
    if fixes.active().get(fix) not in ("applied", "upstream"):
        pytest.skip(f"needs --fixes with {fix} (active: {fixes.active()})")


def unrecognised(generated, lane: str, device: str):
    def known(d):
        return INDEX.known_as(d.to_json(), generated.source)

    result = run_case(generated.case, lanes=(lane,), devices=(device,), known=known)
    return [d for d in result.divergences if not d.data.get("known_as")]


@pytest.mark.parametrize("device", DEVICES)
@given(generated=cases(lanes=("thunder",)))
def test_thunder_reports_only_registered_bugs_with_fixes(device, generated):
    _require("thunder-symbolic-cache")
    found = unrecognised(generated, "thunder", device)
    assert not found, "\n".join(map(str, found)) + "\n" + generated.source


@pytest.mark.parametrize("device", DEVICES)
@given(generated=cases(lanes=("exir",), max_ops=6))
def test_exir_reports_only_registered_bugs_with_fixes(device, generated):
    _require("executorch-specprop")
    found = unrecognised(generated, "exir", device)
    assert not found, "\n".join(map(str, found)) + "\n" + generated.source
