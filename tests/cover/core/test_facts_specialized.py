"""The fact `specialized` says which stages specialized a dim the contract declares
dynamic, and the frame whose guard did it (details "specialized_by"), so that a pattern
can name the code at fault rather than every specialization of a stage."""

from __future__ import annotations

from fuzz.divergence import Divergence
from fuzz.facts import facts_for


def _facts(details):
    d = Divergence("exir.under-allocation", "call[1]", "planned [5]", "cpu", {})
    return facts_for(d, [(), ()], details)


def test_the_frame_that_specialized_a_dim_is_a_fact():
    details = {
        "specialized": {"s53=4": "to_executorch"},
        "specialized_by": {"s53=4": "executorch/exir/tensor.py:__lt__"},
    }
    assert _facts(details)["specialized"] == [
        "to_executorch",
        "by:executorch/exir/tensor.py:__lt__",
    ]


def test_without_a_frame_the_fact_names_the_stage_only():
    assert _facts({"specialized": {"s77=3": "to_edge"}})["specialized"] == ["to_edge"]
    assert "specialized" not in _facts({})
