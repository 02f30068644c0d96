"""The generated cases a benchmark measures: Hypothesis' generate phase alone (no
shrinking, no database, no deadline, no health checks), seeded when a seed is given, so
that a figure can be reproduced by its command at its checkout.

`fuzz` is imported when cases are drawn, not with this module: a benchmark that measures
another checkout's generator (`--tree`) puts that checkout first on sys.path after
importing this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

if TYPE_CHECKING:
    from fuzz.strategies import GeneratedCase


def each_case(
    visit: Callable[[GeneratedCase], Any],
    n: int,
    lane: str,
    *,
    seed: int | None = None,
    **strategy: Any,
) -> None:
    """Call `visit` on each of `n` cases drawn for `lane`; `strategy` goes to
    `fuzz.strategies.cases` (focus, max_ops)."""
    from fuzz.strategies import cases

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(lanes=(lane,), **strategy))
    def run(generated: GeneratedCase) -> None:
        visit(generated)

    (run if seed is None else hypothesis_seed(seed)(run))()


def draw(n: int, seed: int, lane: str) -> list[GeneratedCase]:
    """`n` cases for `lane`, drawn under `seed`."""
    drawn: list[GeneratedCase] = []
    each_case(drawn.append, n, lane, seed=seed)
    return drawn
