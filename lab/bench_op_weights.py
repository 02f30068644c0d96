"""What the op weighting (fuzz/ops/weights.py `WEIGH_BY`) does to one worker's night of
programs: generation only, no lane runs, both weightings side by side.

    python lab/bench_op_weights.py [--lane exir] [--programs 125] [--seeds 1,2,3]
                                          [--watch floordiv,logsumexp_dims]
                                          [--weightings family,op]

For each weighting and seed, draws --programs distinct programs for the lane in rounds of
`ROUND_EXAMPLES` (as a nightly worker does, fuzz/campaign/rounds.py), and prints: distinct
ops drawn, op presences (the sum over programs of their distinct ops), the catalogue ops
drawn at most once, the share of programs holding a data-dependent op, a custom op or a
cond (the EXIR floor, 30 %) and a number input (the Thunder floor, 25 %), and the
presences of each --watch op. 125 EXIR or 275 Thunder programs are about what one of two
workers explores in a 120 s night.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz import ops as op_catalogue  # noqa: E402
from fuzz.campaign.rounds import ROUND_EXAMPLES  # noqa: E402
from fuzz.ops import weights  # noqa: E402
from lab.bench_round_breadth import draw_rounds  # noqa: E402


def night(lane: str, programs: int, base_seed: int) -> dict:
    ops: Counter = Counter()
    shares = Counter()

    def on_case(generated) -> None:
        coverage = generated.coverage()
        ops.update(coverage["ops"])
        shares["programs"] += 1
        shares["dynamic"] += coverage["dynamic"]
        shares["number"] += coverage["inputs"]["number"]

    draw_rounds(lane, programs, ROUND_EXAMPLES, base_seed, on_case)
    catalogue = [op.name for op in op_catalogue.for_lanes((lane,))]
    return {
        "distinct_ops": len(ops),
        "presences": sum(ops.values()),
        "at_most_once": sum(1 for name in catalogue if ops[name] <= 1),
        "dynamic": f"{shares['dynamic'] / shares['programs']:.0%}",
        "number": f"{shares['number'] / shares['programs']:.0%}",
        "ops": ops,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lane", default="exir", choices=("exir", "thunder"))
    parser.add_argument("--programs", type=int, default=125)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--watch", default="", help="comma-separated op names")
    parser.add_argument("--weightings", default="family,op", help="WEIGH_BY values to run")
    args = parser.parse_args()
    watch = [w for w in args.watch.split(",") if w]
    print(f"{args.lane}, {args.programs} distinct programs per seed, rounds of {ROUND_EXAMPLES}")
    for weigh_by in args.weightings.split(","):
        weights.WEIGH_BY = weigh_by
        for s in (int(x) for x in args.seeds.split(",")):
            result = night(args.lane, args.programs, s)
            ops = result.pop("ops")
            watched = {w: ops[w] for w in watch}
            print(f"weigh by {weigh_by:>6}, seed {s}: {result} watched {watched}")


if __name__ == "__main__":
    main()
