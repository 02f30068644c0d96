"""How a worker's Hypothesis round ends early: the exceptions fuzz.campaign.worker raises
from inside its test function (the budget is spent, a shrink is cut short, or a program
diverged and Hypothesis should shrink it)."""

from __future__ import annotations

import re
from typing import Any

from fuzz.errors import FuzzError


class StopRound(KeyboardInterrupt):
    """Ends a Hypothesis round at once from inside the test. A KeyboardInterrupt because that
    is the one exception Hypothesis lets through without saving the example to its
    database: any other (even a BaseException) would be stored as a failing example and
    replayed first by every later campaign sharing the database."""


class BudgetExhausted(StopRound):
    """Exploring is over: the budget or the worker's quota is spent."""


class ShrinkCutShort(StopRound):
    """The shrink budget is spent: the best candidate so far becomes the finding."""


class Diverged(FuzzError):
    """Base of the per-bucket exception classes raised so that Hypothesis shrinks."""

    payload: dict[str, Any]


_CLASSES: dict[str, type[Diverged]] = {}


def exception_for(bucket: str) -> type[Diverged]:
    """One exception class per bucket: Hypothesis tells bugs apart by exception type and
    location, so shrinking keeps to the same bucket."""
    if bucket not in _CLASSES:
        name = "Diverged_" + re.sub(r"\W+", "_", bucket)[:80]
        _CLASSES[bucket] = type(name, (Diverged,), {})
    return _CLASSES[bucket]
