"""Diagnostic repairs (fuzz/backends/thunder/repairs.py): installed only for the annotate
step's re-run and restored exactly; a divergence is marked "repaired_by" only when the
repair changed what Thunder computed and the divergence went away with it."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fuzz.backends.thunder.repairs import REPAIRS, repaired
from fuzz.case import load_case
from fuzz.case_runner import run_case
from fuzz.speedups import compat_state

CORPUS = Path(__file__).resolve().parents[3] / "corpus"


def _thunder_utils():
    from fixes.compat_thunder_named_tensor import import_thunder

    import_thunder()
    import thunder.core.utils as utils

    return utils


@pytest.mark.parametrize("name", sorted(REPAIRS))
def test_a_repair_restores_thunder_exactly_even_when_the_run_raises(name):
    utils = _thunder_utils()
    stock = utils.elementwise_type_promotion
    with pytest.raises(RuntimeError, match="inside"):
        with repaired(name):
            assert utils.elementwise_type_promotion is not stock
            # A patch set (fixes._patching), recorded with the others while installed.
            assert compat_state()[REPAIRS[name].name] == [
                "thunder.core.utils.elementwise_type_promotion"
            ]
            raise RuntimeError("inside")
    assert utils.elementwise_type_promotion is stock
    assert REPAIRS[name].name not in compat_state()


def test_a_repair_over_another_upstream_source_is_skipped_and_changes_nothing(monkeypatch):
    from fuzz.backends.thunder import repairs

    utils = _thunder_utils()
    stock = utils.elementwise_type_promotion
    monkeypatch.setitem(repairs.UPSTREAM_SOURCES, "number-rounding", "0" * 16)
    with repaired("number-rounding") as use:
        assert utils.elementwise_type_promotion is stock
        assert (
            REPAIRS["number-rounding"]
            .skipped["number-rounding"]
            .startswith("upstream source differs")
        )
    assert use.changed == 0 and not REPAIRS["number-rounding"].skipped


def _evens_branch(x):
    evens = torch.arange(0, x.shape[0], 2)
    if evens.shape[0] == 1:
        return evens * 10
    return evens + 1


def _jit(fn):
    import thunder

    return thunder.jit(fn, cache="symbolic values")


def test_number_rounding_fixes_the_traced_arange_length_and_counts_its_use():
    x = torch.randn(3)
    expected = _evens_branch(x)  # [1, 3]: two evens below 3
    assert not torch.equal(_jit(_evens_branch)(x), expected), "stock Thunder 0.2.6 traces one"
    with repaired("number-rounding") as use:
        assert torch.equal(_jit(_evens_branch)(x), expected)
    assert use.changed > 0
    # A program that rounds no float number: the repair changes nothing, and says so.
    with repaired("number-rounding") as use:
        _jit(lambda t: (t * 2.0).sum())(x)
    assert use.changed == 0


def _repaired_by(case_name: str) -> list:
    result = run_case(load_case(CORPUS / f"{case_name}.py"), ("thunder",), ("cpu",))
    assert result.divergences, f"{case_name} should diverge"
    return [d.data.get("repaired_by") for d in result.divergences]


def test_the_lane_marks_the_divergence_the_repair_removes_and_no_other_bugs():
    assert _repaired_by("thunder_arange_step_length_truncated") == ["number-rounding"]
    # Other registered Thunder wrong results: the repair leaves them as they are.
    for other in ("thunder_masked_fill_bool_int", "thunder_bool_int_promotion_int8"):
        assert set(_repaired_by(other)) == {None}, other
