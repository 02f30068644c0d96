"""How many distinct ops one worker's programs draw, by Hypothesis round length: generation
only, no lane runs.

    python lab/bench_round_breadth.py [--lane exir] [--programs 125]
                                             [--rounds 9,5000] [--seeds 1,2,3]

For each round length R (Hypothesis' max_examples per `@given` run, as a nightly worker
sets it: fuzz/campaign/rounds.py ROUND_EXAMPLES) and each seed, runs rounds of `cases`
for the lane, each round seeded from the seed and its number, until --programs distinct
programs are drawn (a duplicate source is not counted, as the worker's verdict cache
answers it without running), and prints: rounds, mean ops per program, distinct ops
drawn, op presences (the sum over programs of their distinct ops) and how many programs
hold `neg` (what an all-zero op gene decodes to). 125 EXIR or 275 Thunder programs are
about what one of two workers explores in a 120 s night.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from fuzz.strategies import cases  # noqa: E402


class _Enough(KeyboardInterrupt):
    """Ends a round from inside the test (Hypothesis lets a KeyboardInterrupt through)."""


def draw_rounds(lane: str, programs: int, round_examples: int, base_seed: int, on_case) -> int:
    """Runs seeded rounds of `cases` for the lane (round r seeded `base_seed * 100_000 +
    r`) until `programs` distinct sources are drawn, calling `on_case(generated)` on each
    new one (a duplicate source is skipped, as the worker's verdict cache answers it).
    Returns the number of rounds."""
    sources: set[str] = set()

    def one_round(round_no: int) -> None:
        @seed(base_seed * 100_000 + round_no)
        @settings(
            max_examples=round_examples,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            deadline=None,
        )
        @given(cases(lanes=(lane,)))
        def draw(generated):
            if generated.source in sources:
                return
            sources.add(generated.source)
            on_case(generated)
            if len(sources) >= programs:
                raise _Enough

        draw()

    rounds = 0
    try:
        while True:
            rounds += 1
            one_round(rounds)
    except _Enough:
        pass
    return rounds


def breadth(lane: str, programs: int, round_examples: int, base_seed: int) -> dict:
    sizes: list[int] = []
    ops: Counter = Counter()

    def on_case(generated) -> None:
        sizes.append(len(generated.program.nodes))
        ops.update({n.op for n in generated.program.nodes})

    start = time.perf_counter()
    rounds = draw_rounds(lane, programs, round_examples, base_seed, on_case)
    return {
        "rounds": rounds,
        "mean_ops": round(sum(sizes) / len(sizes), 2),
        "distinct_ops": len(ops),
        "presences": sum(ops.values()),
        "neg": ops["neg"],
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lane", default="exir", choices=("exir", "thunder"))
    parser.add_argument("--programs", type=int, default=125)
    parser.add_argument("--rounds", default="9,5000", help="round lengths to compare")
    parser.add_argument("--seeds", default="1,2,3")
    args = parser.parse_args()
    print(f"{args.lane}, {args.programs} distinct programs per seed")
    for r in (int(x) for x in args.rounds.split(",")):
        for s in (int(x) for x in args.seeds.split(",")):
            print(f"round {r:>5}, seed {s}: {breadth(args.lane, args.programs, r, s)}")


if __name__ == "__main__":
    main()
