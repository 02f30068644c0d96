"""Each generated dtype is compared with its own tolerance (fuzz/oracles/results.py
TOLERANCES): a difference just inside it passes, just outside it fails, and int64 and
bool compare exactly."""

from __future__ import annotations

import pytest
import torch

from fuzz.ops import dtypes
from fuzz.oracles.results import TOLERANCES, value_mismatch

FLOATS = [getattr(torch, d) for d in dtypes.FLOATS]


def _representable(value: float, dtype: torch.dtype) -> float:
    return float(torch.tensor(value, dtype=torch.float64).to(dtype).double())


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_float_tolerance_is_applied_per_dtype(dtype):
    rtol, atol = TOLERANCES[dtype]
    expected = torch.tensor([1.0, 2.0], dtype=dtype)  # exact in every float dtype
    limit = atol + rtol * 2.0  # allowed |difference| at the element 2.0
    inside = _representable(2.0 + 0.5 * limit, dtype)
    outside = _representable(2.0 + 2.0 * limit, dtype)
    assert 0 < inside - 2.0 <= limit < outside - 2.0, (inside, outside, limit)
    assert value_mismatch(expected, torch.tensor([1.0, inside], dtype=dtype)) is None
    why = value_mismatch(expected, torch.tensor([1.0, outside], dtype=dtype))
    assert why is not None and f"rtol={rtol}" in why


def test_tolerances_differ_between_dtypes():
    """A difference that float16 tolerates fails for float32 and float64: the tolerance
    is the dtype's own, not one for all floats."""
    delta = 0.5 * (TOLERANCES[torch.float16][1] + TOLERANCES[torch.float16][0])
    for dtype, passes in ((torch.float16, True), (torch.float32, False), (torch.float64, False)):
        expected = torch.tensor([1.0], dtype=dtype)
        actual = torch.tensor([_representable(1.0 + delta, dtype)], dtype=dtype)
        assert (value_mismatch(expected, actual) is None) == passes, dtype
    assert set(FLOATS) <= set(TOLERANCES)


@pytest.mark.parametrize(
    "expected, actual",
    [
        (torch.tensor([3, -2]), torch.tensor([3, -1])),
        (torch.tensor([True, False]), torch.tensor([True, True])),
    ],
    ids=["int64", "bool"],
)
def test_int64_and_bool_compare_exactly(expected, actual):
    assert expected.dtype not in TOLERANCES
    assert value_mismatch(expected, expected.clone()) is None
    assert value_mismatch(expected, actual) == "values differ (exact dtype)"


def test_a_dtype_change_is_a_mismatch():
    expected = torch.tensor([1.0, 2.0], dtype=torch.float16)
    assert "dtype" in value_mismatch(expected, expected.float())
    assert "dtype" in value_mismatch(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
