"""Throughput of the EXIR lane on a fixed set of hand-written programs.

    python benchmarks/bench_exir_lane.py [--repeat N] [--no-warmup]

Runs each program through `ExirLane.run` (export -> to_edge -> to_executorch with the
oracles -> the pip runtime where it can) after the eager reference, and prints
programs/s and where the time went (export, to_edge, to_executorch, runtime, checks;
eager is reported separately). The first program of a process pays one-off import and
tracing costs, so by default one warm-up pass runs first and is not counted.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fuzz.custom_ops  # noqa: E402,F401
from fuzz.backends.eager import run_eager  # noqa: E402
from fuzz.backends.exir import ExirLane  # noqa: E402
from fuzz.case import case_from_source  # noqa: E402
from fuzz.tensors import materialize  # noqa: E402

PROGRAMS = {
    "elementwise": """
def program(x, y):
    return (x * 2 + y).relu(), x - y.sin()
def calls():
    return [(torch.randn(4, 3), torch.randn(3)), (torch.randn(6, 3), torch.randn(3))]
""",
    "reduction": """
def program(x):
    return x.sum(1), x.mean(0, keepdim=True) - x, x.amax()
def calls():
    return [(torch.randn(4, 8),), (torch.randn(7, 8),)]
""",
    "matmul": """
def program(x, w):
    return torch.relu(x @ w) @ w.t()
def calls():
    return [(torch.randn(4, 8), torch.randn(8, 8)), (torch.randn(9, 8), torch.randn(8, 8))]
""",
    "shape_branch": """
def program(x):
    if x.shape[0] > 3:
        return x.sum(0) * 2
    return x - 1
def calls():
    return [(torch.randn(5, 3),), (torch.randn(7, 3),)]
""",
    "cond": """
def program(x):
    return torch.cond(x.sum() > 0, lambda x: (x * 2).sin(), lambda x: x.cos() + 1, (x,))
def calls():
    return [(torch.rand(4, 3),), (-torch.rand(5, 3),)]
""",
    "views": """
def program(x):
    return x.view(-1) * 2, x.t().contiguous(), x[1:].unsqueeze(0).sum()
def calls():
    return [(torch.randn(4, 3),), (torch.randn(5, 3),)]
""",
    "inplace": """
def program(x, y):
    x.mul_(2).add_(y)
    return x.sum(0)
def calls():
    return [(torch.randn(4, 3), torch.randn(3)), (torch.randn(6, 3), torch.randn(3))]
""",
    "masked_select": """
def program(x):
    return torch.masked_select(x, x > 0) * 3
def calls():
    return [(torch.randn(4, 3),), (torch.randn(6, 3),)]
""",
    "custom_ops": """
import fuzz.custom_ops
def program(x):
    a = torch.ops.fuzz.positive_head(x, 10)
    p, n = torch.ops.fuzz.split_sign(x)
    return a * 2, p.sum() - n.sum()
def calls():
    return [(torch.randn(4, 8),), (torch.randn(6, 8),)]
""",
    "cat_stack": """
def program(x, y):
    return torch.cat([x, y], 0), torch.stack([x, x], 0).sum(0)
def calls():
    return [(torch.randn(3, 4), torch.randn(2, 4)), (torch.randn(5, 4), torch.randn(2, 4))]
""",
}

STAGES = ("export", "to_edge", "to_executorch", "runtime", "checks")


def run_once(lane: ExirLane, cases) -> tuple[Counter, float, Counter]:
    timings, outcome = Counter(), Counter()
    t0 = time.perf_counter()
    for case in cases:
        calls = materialize(case, 0, "cpu")
        t = time.perf_counter()
        reference = run_eager(case, calls)
        timings["eager"] += time.perf_counter() - t
        report = lane.run(case, calls, reference, "cpu")
        timings.update({k: v for k, v in report.timings.items() if k != "eager"})
        outcome["skipped" if report.skipped else "diverged" if report.divergences else "clean"] += 1
    return timings, time.perf_counter() - t0, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="measured passes over the programs")
    parser.add_argument("--no-warmup", action="store_true", help="count the first (cold) pass too")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    cases = [case_from_source("import torch\n" + src, name) for name, src in PROGRAMS.items()]
    lane = ExirLane()
    if not args.no_warmup:
        t = time.perf_counter()
        run_once(lane, cases)
        print(
            f"warm-up pass: {time.perf_counter() - t:.2f} s for {len(cases)} programs (not counted)"
        )
    total, wall, outcome = Counter(), 0.0, Counter()
    for _ in range(args.repeat):
        timings, elapsed, seen = run_once(lane, cases)
        total.update(timings)
        outcome.update(seen)
        wall += elapsed
    n = len(cases) * args.repeat
    print(
        f"{n} programs in {wall:.2f} s: {n / wall:.2f} programs/s "
        f"({', '.join(f'{v} {k}' for k, v in sorted(outcome.items()))})"
    )
    staged = sum(total[s] for s in STAGES)
    for stage in STAGES + ("eager",):
        share = f"{100 * total[stage] / staged:5.1f}%" if stage in STAGES and staged else "     "
        print(
            f"  {stage:<14}{total[stage]:8.3f} s  {share}  "
            f"{1000 * total[stage] / n:8.1f} ms/program"
        )
    print(f"  {'other':<14}{wall - staged - total['eager']:8.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
