"""Op focus: a worker keeps drawing more often the catalogue ops it has drawn least.

Why: with 220 ops, a 120 s night draws each op a few times at best, and an op whose
operand constraints rarely hold even less (benchmarks/RESULTS.md): a fault in such an op
is found only by luck. So the worker keeps a focus, the
`FOCUS_SIZE` lane ops it has drawn least so far (ties broken in an order fixed by a seed
derived from the campaign's, so an op stays in focus until it is drawn), and the
generator adds the focus as one more family (weight `FOCUS_WEIGHT` in
fuzz/ops/weights.py): the stress families keep most of their share, and an op still
appears only where its operand constraints hold (valid by construction, as before).

The focus is read when a program is drawn and moves only while exploring, never between
a program that diverged and its shrink, so Hypothesis shrinks with one mapping from
choices to programs; the campaign seed still determines every program. (The first
version held one focus per Hypothesis round, when rounds were long runs that each
restarted from small programs; rounds are short now, fuzz/campaign/rounds.py.)

Off by default (`nightly --op-focus on`): the focus is state outside Hypothesis' choices,
so an example saved in a database (a failing program, replayed first by the next night)
decodes to another program under another focus, and the replay of last night's failures
that a shared database promises is lost. Use it with `--database none`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from fuzz import ops as op_catalogue

FOCUS_SIZE = 8  # ops in the focus


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
    """The current focus of one worker (`ops`, read by fuzz.strategies.cases at each draw)
    and the draws it is computed from."""

    def __init__(self, lanes: Sequence[str], seed: int, on: bool = True):
        self.names = tuple(op.name for op in op_catalogue.for_lanes(lanes)) if on else ()
        self.seed, self.drawn, self.due = seed, Counter(), False
        self.ops = self._next()

    def _next(self) -> frozenset[str]:
        if not self.names:
            return frozenset()
        return least_drawn(self.names, self.drawn, self.seed)

    def explored_program(self, op_names: Iterable[str], may_move: bool) -> None:
        """Count an explored program's ops and move the focus past the ones it drew, but
        only when `may_move`: a program that diverged is shrunk next, by replaying its
        choices, which must decode to programs of the focus it was drawn with
        (`move_if_due` then moves it when the next round starts)."""
        ops = set(op_names)
        self.drawn.update(ops)
        self.due = self.due or bool(ops & self.ops)
        if may_move:
            self.move_if_due()

    def move_if_due(self) -> None:
        if self.due:
            self.ops, self.due = self._next(), False
