"""Op focus: a worker draws more often the catalogue ops it has drawn least.

Why: with 220 ops, a 120 s night draws each op a few times at best, and an op whose
operand constraints rarely hold even less (benchmarks/journal/): a fault in such an op
is found only by luck. So the worker keeps a focus, per lane the `FOCUS_SIZE` ops it has
drawn least so far (ties broken in an order fixed by a seed derived from the campaign's,
so an op stays in focus until it is drawn). Each program draws its own focus ops as
Hypothesis choices (fuzz.strategies.FocusOps), mostly among the worker's, and the
generator adds them as one more family (weight `FOCUS_WEIGHT` in fuzz/ops/weights.py):
the stress families keep most of their share, and an op still appears only where its
operand constraints hold (valid by construction, as before).

A program is a function of its choices alone: the focus changes how the focus ops are
drawn, not how a drawn choice decodes, so an example saved in a shared database replays
as the same program under any focus (until 2026-12-03 the focus was read at decoding, and
it was off by default for that reason). It moves only between rounds (short Hypothesis
runs, fuzz/campaign/rounds.py): within a run Hypothesis requires every draw to be made
with the same distribution as before at the same point (else FlakyStrategyDefinition),
and the focus is that distribution. Only explored programs are counted, not shrink
candidates.

On by default (`nightly --op-focus off`: every program's focus ops are drawn uniformly).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from fuzz import ops as op_catalogue
from fuzz.ops.weights import FOCUS_SIZE


def least_drawn(
    names: Iterable[str], drawn: Counter, seed: int, size: int = FOCUS_SIZE
) -> frozenset[str]:
    """The `size` op names of `names` with the fewest draws in `drawn`; among equally drawn
    ones, a choice seeded by `seed` (so a rerun of the campaign focuses alike)."""
    order = sorted(set(names))
    random.Random(seed).shuffle(order)
    order.sort(key=lambda name: drawn[name])  # stable: the shuffle breaks ties
    return frozenset(order[:size])


class Focus:
    """The current focus of one worker (per lane its least drawn ops: `for_lane`, read by
    fuzz.strategies.cases at each draw) and the draws, per lane, it is computed from."""

    def __init__(self, lanes: Sequence[str], seed: int, on: bool = True):
        self.names = {
            lane: tuple(op.name for op in op_catalogue.for_lanes((lane,)))
            for lane in (lanes if on else ())
        }
        self.drawn = {lane: Counter() for lane in self.names}
        self.seed, self.due = seed, False
        self.by_lane = self._next()

    def for_lane(self, lane: str) -> frozenset[str]:
        return self.by_lane.get(lane, frozenset())

    def _next(self) -> dict[str, frozenset[str]]:
        return {
            lane: least_drawn(names, self.drawn[lane], self.seed)
            for lane, names in self.names.items()
        }

    def explored_program(self, op_names: Iterable[str], lane: str | None = None) -> None:
        """Count an explored program's ops (for `lane`, or every lane when None); the
        focus moves past the ones it drew when the next round starts (`move_if_due`)."""
        ops = set(op_names)
        for name in self.names if lane is None else [lane] if lane in self.names else []:
            self.drawn[name].update(ops)
            self.due = self.due or bool(ops & self.by_lane[name])

    def move_if_due(self) -> None:
        if self.due:
            self.by_lane, self.due = self._next(), False
