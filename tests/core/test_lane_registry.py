"""A lane a plugin adds registers itself and its kinds through public functions
(fuzz.backends.registry.register_lane, fuzz.divergence.register_kinds)."""

from __future__ import annotations

import pytest

from fuzz.backends import registry
from fuzz.backends.base import LaneReport
from fuzz.case import case_from_source
from fuzz.case_runner import run_case
from fuzz.divergence import KINDS, Divergence, register_kinds

SOURCE = """import torch


def program(x):
    return (x + 1.0,)


def calls():
    return [(torch.randn(3),)]
"""


class ToyLane:
    """Diverges on every call it is given."""

    name = "toy"

    def unavailable(self, device):
        return None

    def run(self, case, calls, reference, device):
        report = LaneReport(self.name, device)
        report.divergences.append(Divergence("toy.always", "call[0]", "toy lane", device))
        return report


@pytest.fixture
def restored(monkeypatch):
    """The catalogue and the lane table as they were, after the test (not a plugin's
    concern: a plugin's registrations last as long as its process)."""
    saved = dict(KINDS)
    monkeypatch.setattr(registry, "_INSTANCES", dict(registry._INSTANCES))
    yield
    KINDS.clear()
    KINDS.update(saved)


def test_a_plugin_lane_and_its_kinds_run_like_a_built_in_lane(restored):
    assert registry.unknown_names(["toy"], ["cpu"]) is not None
    with pytest.raises(ValueError, match="unknown divergence kind"):
        Divergence("toy.always", "call[0]", "not registered yet")
    registry.register_lane(ToyLane(), kinds={"toy.always": "the toy lane always diverges"})
    assert registry.unknown_names(["toy", "exir"], ["cpu"]) is None
    assert KINDS["toy.always"] == "the toy lane always diverges"
    result = run_case(case_from_source(SOURCE, "toy_case"), lanes=("toy",), devices=("cpu",))
    assert [d.kind for d in result.divergences] == ["toy.always"]


def test_kinds_are_named_after_their_lane_and_never_redefined(restored):
    with pytest.raises(ValueError, match="toy.<what>"):
        register_kinds("toy", {"thunder.crash": "not the toy lane's"})
    with pytest.raises(ValueError, match="already registered"):
        register_kinds("thunder", {"thunder.crash": "another meaning"})
    meaning = KINDS["thunder.crash"]
    register_kinds("thunder", {"thunder.crash": meaning})  # the same declaration again
    assert KINDS["thunder.crash"] == meaning and "toy.always" not in KINDS
