"""The per-program costs that do not depend on the program, side by side in one run.

    python benchmarks/bench_fixed_costs.py [--repeats 8] [--rounds 3]

* `to_edge` of a one-line program (`(x + y).relu().sum(0)`, one dynamic dim), without and
  with fuzz/backends/exir/speedups.py, alternately, best of `--rounds` rounds of
  `--repeats` calls each: what the speedups save on every EXIR program.
* Thunder, for a 3-op program: a fresh `thunder.jit` and its first call (what the
  unsound-hit oracle's fresh trace costs) against a cache miss on a jit that has an entry
  already (what a miss of the lane's own jit costs), best of the rounds: why a fresh trace
  cannot be made cheaper than the backend's own tracing. Both with and without
  fuzz/backends/thunder/speedups.py, alternately: what they save on every trace.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402


def best_ms(fn: Callable[[], object], repeats: int, rounds: int) -> float:
    fn()  # warm-up, not counted
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats)
    return 1000 * best


def to_edge_costs(repeats: int, rounds: int) -> None:
    from executorch.exir import to_edge

    from fuzz.backends.exir import speedups

    class OneLine(torch.nn.Module):
        def forward(self, x, y):
            return (x + y).relu().sum(0)

    a = torch.export.Dim("a")
    ep = torch.export.export(
        OneLine(), (torch.randn(3, 4), torch.randn(3, 4)), dynamic_shapes={"x": {0: a}, "y": {0: a}}
    )
    was = speedups.installed()
    times: dict[str, list[float]] = {"stock": [], "speedups": []}
    try:
        for _ in range(rounds):  # alternate, so both see the same machine load
            for label, switch in (("stock", speedups.uninstall), ("speedups", speedups.install)):
                switch()
                times[label].append(best_ms(lambda: to_edge(copy.deepcopy(ep)), repeats, 1))
    finally:
        (speedups.install if was else speedups.uninstall)()
    stock, fast = min(times["stock"]), min(times["speedups"])
    print(
        f"to_edge, one-line program: stock {stock:.1f} ms, with speedups {fast:.1f} ms "
        f"(x{stock / fast:.2f})"
    )


def thunder_costs(repeats: int, rounds: int) -> None:
    from fuzz.backends.thunder import speedups as thunder_speedups
    from fuzz.backends.thunder.lane import SYMBOLIC, ThunderLane, _thunder
    from fuzz.prepare import prepare

    prepare("on")
    _thunder()  # the lane's one-time set-up (which installs the speedups) before the switches
    lane = ThunderLane()

    def program(x0, x1, n):
        v = x0 + x1
        return ((v * n).sum(0), torch.relu(v))

    args32 = (torch.randn(3, 4), torch.randn(1, 4), 2)
    args64 = tuple(a.double() if isinstance(a, torch.Tensor) else a for a in args32)

    def fresh():
        lane._jit(program, SYMBOLIC)(*args32)

    def miss():  # a jit holding a float32 entry, then a float64 call: always a miss
        jf = lane._jit(program, SYMBOLIC)
        jf(*args32)
        start = time.perf_counter()
        jf(*args64)
        return time.perf_counter() - start

    fresh_ms: dict[str, list[float]] = {"stock": [], "speedups": []}
    miss_ms: dict[str, list[float]] = {"stock": [], "speedups": []}
    was = thunder_speedups.installed()
    try:
        for _ in range(rounds):
            for name, switch in (
                ("stock", thunder_speedups.uninstall),
                ("speedups", thunder_speedups.install),
            ):
                switch()
                fresh_ms[name].append(best_ms(fresh, repeats, 1))
                miss()
                miss_ms[name].append(1000 * min(miss() for _ in range(repeats)))
    finally:
        (thunder_speedups.install if was else thunder_speedups.uninstall)()
    for name in ("stock", "speedups"):
        print(
            f"thunder ({name}), 3-op program: fresh jit + first call "
            f"{min(fresh_ms[name]):.1f} ms, a miss on a jit with an entry "
            f"{min(miss_ms[name]):.1f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    to_edge_costs(args.repeats, args.rounds)
    thunder_costs(args.repeats, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
