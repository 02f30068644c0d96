"""Throughput of the Thunder lane on a fixed, seeded run, and where the time goes.

    python benchmarks/bench_thunder_lane.py [--examples 40] [--fixes off|on]

Prints programs/s and the split between generation, eager, jit+calls (Thunder tracing
and execution), fresh-trace comparisons (the unsound-hit oracle re-jits on every hit),
the default-cache control, the other oracles, and the rest (engine overhead).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fixes  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--fixes", default="off")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    fixes.apply(args.fixes)
    from fuzz.explore import explore

    explore(["thunder"], 2, seed=12345)  # warm-up: imports, first jit
    start = time.perf_counter()
    e = explore(["thunder"], args.examples, seed=args.seed, stop_on_first=False)
    wall = time.perf_counter() - start
    parts = dict(e.timings)
    harness = parts.get("generation", 0) + parts.get("oracles", 0)
    other = wall - sum(parts.values())
    print(
        f"fixes={args.fixes} {fixes.active()}  examples={e.examples}  wall={wall:.1f}s  "
        f"programs/s={e.examples / wall:.2f}  skipped={e.skipped}"
    )
    print(
        f"hits={e.counters['hits']} misses={e.counters['misses']} "
        f"missed-legal-hits={e.counters['missed-legal-hits']}"
    )
    for name, seconds in sorted(parts.items(), key=lambda kv: -kv[1]) + [("other", other)]:
        print(f"  {name:<12} {seconds:7.2f}s  {100 * seconds / wall:5.1f}%")
    print(
        f"harness's own work (generation + oracles + other): "
        f"{100 * (harness + other) / wall:.1f}% of wall time"
    )


if __name__ == "__main__":
    main()
