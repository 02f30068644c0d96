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


def night_draws(n: int, seed: int, lane: str) -> list[GeneratedCase]:
    """The first `n` distinct programs a default night's first worker explores on `lane`
    with `--hypothesis-seed seed`: its seed (slot 0, incarnation 0), Hypothesis rounds of
    `ROUND_EXAMPLES` under the nightly profile, each round seeded as the worker seeds it,
    and the op focus moved between rounds by the programs explored (fuzz/campaign/
    worker.py). Without the judging: a night that finds something shrinks it and starts
    its next round early, so its later draws differ from these; until then they are the
    same programs."""
    from hypothesis import settings as hsettings

    import fuzz.settings  # noqa: F401  (registers the nightly profile)
    from fuzz.campaign.focus import Focus
    from fuzz.campaign.protocol import derive_seed
    from fuzz.campaign.rounds import ROUND_EXAMPLES
    from fuzz.defaults import MAX_CALLS, MAX_OPS
    from fuzz.strategies import cases

    worker_seed = derive_seed(seed, 0, 0)
    focus = Focus((lane,), derive_seed(worker_seed, 1), True)
    drawn: list[GeneratedCase] = []
    seen: set[str] = set()
    for round_no in range(100 * n):
        if len(drawn) >= n:
            break
        focus.move_if_due()

        @hsettings(
            hsettings.get_profile("nightly"),
            max_examples=ROUND_EXAMPLES,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        )
        @hypothesis_seed(derive_seed(worker_seed, round_no))
        @given(cases(lanes=(lane,), max_ops=MAX_OPS, max_calls=MAX_CALLS, focus=focus))
        def one_round(generated: GeneratedCase) -> None:
            if len(drawn) >= n or generated.source in seen:
                return
            seen.add(generated.source)
            drawn.append(generated)
            focus.explored_program((node.op for node in generated.program.nodes), lane)

        one_round()
    return drawn
