"""A worker's Hypothesis rounds: how long one is, and how one ends early (the exceptions
fuzz.campaign.worker raises from inside its test function: the budget is spent, a shrink
is cut short, or a program diverged and Hypothesis should shrink it)."""

from __future__ import annotations

import re
from typing import Any

from fuzz.errors import FuzzError

# Examples per round (Hypothesis' max_examples). Hypothesis starts every run by trying
# the simplest extension of each new prefix, for its first max_examples // 10 valid
# examples (at most 50): with one long run per worker, that warm-up of one-op programs
# (`neg` of the first input) was about half of the programs an EXIR worker explores in a
# 120 s night, and later examples are mostly mutations of earlier ones, so an op drawn
# early crowded the rest. Under 10 there is no warm-up (one simplest example per round):
# generation-only, 125 EXIR programs drew 173-178 distinct ops in rounds of 9 against
# 75-86 in one run (lab/bench_round_breadth.py, benchmarks/journal/). A
# divergence found in a round is shrunk in that round, as before.
ROUND_EXAMPLES = 9
# Rounds in a row that explore no new program (every example a duplicate of a judged
# one) before a worker concludes that Hypothesis has nothing new to try.
EMPTY_ROUNDS_LIMIT = 50


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
