"""How many distinct ops a night's generator draws, with and without the op focus
(fuzz/campaign/focus.py), generation only (no lane runs):

    python lab/bench_focus_coverage.py [--programs 180] [--lane thunder] [--seeds 1,2]
                                              [--ops flip,logsumexp_dims]

Per seed, --programs cases for the lane in rounds of ROUND_EXAMPLES (one Hypothesis run
each, as a worker explores), each explored program counted into a Focus as a nightly
worker does (`--op-focus on`) or not (off); prints the distinct ops drawn over all seeds
(the union, as two workers of one night), the lane's op count, the 10th percentile and
median of programs per op, and the programs holding each of --ops.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from fuzz import ops as op_catalogue  # noqa: E402
from fuzz.campaign.focus import Focus  # noqa: E402
from fuzz.campaign.rounds import ROUND_EXAMPLES  # noqa: E402
from fuzz.strategies import cases  # noqa: E402


def night(lane: str, programs: int, worker_seed: int, on: bool, count=None) -> Counter:
    """`programs` programs in rounds of ROUND_EXAMPLES, as a worker explores them: the
    focus moves between rounds (fuzz/campaign/focus.py). Counts the ops of each program,
    or what `count(generated)` returns (lab/night_corners.py)."""
    focus = Focus((lane,), worker_seed, on)
    drawn: Counter = Counter()
    explored = 0

    @settings(
        max_examples=ROUND_EXAMPLES,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(lanes=(lane,), focus=focus))
    def explore(generated):
        nonlocal explored
        if explored < programs:
            explored += 1
            ops = {node.op for node in generated.program.nodes}
            drawn.update(ops if count is None else count(generated))
            focus.explored_program(ops, lane)

    for round_no in itertools.count():
        if explored >= programs:
            return drawn
        focus.move_if_due()
        seed(worker_seed * 100_000 + round_no)(explore)()
    return drawn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=180)
    parser.add_argument("--lane", default="thunder")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--ops", default="", help="comma-separated op names to count")
    args = parser.parse_args()
    named = [name for name in args.ops.split(",") if name]
    seeds = [int(s) for s in args.seeds.split(",")]
    total = len(op_catalogue.for_lanes((args.lane,)))
    for on in (False, True):
        union: Counter = Counter()
        for s in seeds:
            union.update(night(args.lane, args.programs, s, on))
        per_op = sorted(union[op.name] for op in op_catalogue.for_lanes((args.lane,)))
        print(
            f"op focus {'on ' if on else 'off'}: {len(union)} of {total} {args.lane} ops drawn "
            f"in {len(seeds)} x {args.programs} programs; never drawn {total - len(union)}; "
            f"programs per op p10 {per_op[total // 10]}, median {per_op[total // 2]}"
            + "".join(f"; {name} {union[name]}" for name in named)
        )


if __name__ == "__main__":
    main()
