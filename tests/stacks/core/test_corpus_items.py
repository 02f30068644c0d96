"""The corpus items (fuzz.pytest_plugin) cannot pass vacuously: with every fix on, a case whose
EXPECT names kinds of a lane (a registered bug that must still show) fails when that lane
skips it, naming the case file, the lane/device and the skip reason; a case without EXPECT
still skips. Runs pytest in a subprocess on a corpus folder of its own, with a lane that
skips everything standing in for Thunder."""

from __future__ import annotations

from tests.helpers import pytest_corpus

SKIPPING_LANE = """
from fuzz.backends import registry
from fuzz.backends.base import LaneReport


class SkippingLane:
    name = "thunder"

    def unavailable(self, device):
        return None

    def run(self, case, calls, reference, device):
        return LaneReport(self.name, device, skipped="unsupported: this lane skips everything")


registry.register_lane(SkippingLane())
"""

CASE = '''"""{doc}"""
import torch


def program(x):
    return (x * 2,)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunder",)
{more}
'''


def test_a_registered_bug_that_turns_into_a_skip_fails(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (tmp_path / "skipping_lane.py").write_text(SKIPPING_LANE)
    (corpus / "registered.py").write_text(
        CASE.format(doc="A registered bug.", more='EXPECT = ("thunder.crash",)\nUPSTREAM = None')
    )
    (corpus / "plain.py").write_text(CASE.format(doc="No registered bug.", more=""))
    proc = pytest_corpus(corpus, "skipping_lane", "on", "-k", "cpu", extra_path=str(tmp_path))
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-3000:]
    assert "1 failed, 1 skipped" in out, out[-3000:]
    assert "FAILED" in out and "registered.py::thunder[cpu]" in out
    assert (
        "registered.py on thunder/cpu: EXPECT ['thunder.crash'] registers a bug that must "
        "show here, but the lane skipped: unsupported: this lane skips everything"
    ) in out, out[-3000:]
    assert "SKIPPED" in out and "this lane skips everything" in out  # plain.py
