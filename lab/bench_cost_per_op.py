"""A lane's seconds per program by the program's number of ops: is a program's cost
fixed (then longer programs would draw more ops per second) or per op?

    python lab/bench_cost_per_op.py --lane exir|thunder [--programs 60] [--seed 2]

Draws --programs cases for the lane (Hypothesis, generate phase, --seed; the nightly's
generator without the op focus), runs three of them once to warm up, then each once
through the lane (`run_case`, no confirmation re-run) and prints, per number of ops, the
programs and their mean seconds, and the overall means.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.case_runner import run_case  # noqa: E402
from fuzz.prepare import prepare  # noqa: E402
from lab.bench_non_core import draw  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lane", choices=("exir", "thunder"), required=True)
    parser.add_argument("--programs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    prepare("on", (), "on")
    drawn = draw(args.programs, args.seed, args.lane)
    for generated in drawn[:3]:
        run_case(generated.case, lanes=(args.lane,), devices=("cpu",), confirm=False)
    by_ops: dict[int, list[float]] = defaultdict(list)
    for generated in drawn:
        start = time.perf_counter()
        run_case(generated.case, lanes=(args.lane,), devices=("cpu",), confirm=False)
        by_ops[len(generated.program.nodes)].append(time.perf_counter() - start)
    print(f"{len(drawn)} {args.lane} programs, seed {args.seed}")
    print("ops  programs  mean s")
    for n in sorted(by_ops):
        times = by_ops[n]
        print(f"{n:3}  {len(times):8}  {sum(times) / len(times):6.3f}")
    every = [t for times in by_ops.values() for t in times]
    ops = sum(n * len(times) for n, times in by_ops.items()) / len(every)
    print(f"mean ops {ops:.2f}, mean s {sum(every) / len(every):.3f}")


if __name__ == "__main__":
    main()
