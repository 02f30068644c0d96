"""Throughput of a lane on generated programs, and where a worker's time goes.

    python benchmarks/bench_lane.py [--lane exir|thunder] [--examples 60] [--seed 5]
        [--fixes on] [--no-known] [--json PATH]
    python benchmarks/bench_lane.py --lane thunder --against ../base [--rounds 2]

Runs `fuzz.explore.explore([LANE], N, seed=..., stop_on_first=False)` (one worker,
fixes on by default) after a short warm-up that is not counted, set up as a campaign
worker is (the lane's stack imported, then `fuzz.prepare.settle_long_lived_objects` where
the checkout has it), and prints:

  * programs per worker-second (examples / wall time of the exploration);
  * the backend's own time, as shares of the wall time: for EXIR export, to_edge,
    to_executorch (the main build) and runtime (loading the .pte, running the calls and
    the contract probes on it); for Thunder jit+calls (tracing and running the calls);
  * the harness's own time: each check of the lane (EXIR: report.timings["check:<name>"],
    with its parts "check:<name>/<part>" indented; Thunder: the fresh traces of the
    unsound-hit oracle, the other oracles, the default-cache control), the eager
    reference, generation, confirmation re-runs, and what no timer covers;
  * the ratio of the harness's own time (wall minus backend) to the backend's own time.

By default divergences the corpus knows are set aside as the nightly job does while
exploring (`explore(corpus=...)`: no confirmation re-run for them); `--no-known`
confirms every divergence. Counters and divergences by kind are printed too, so two
runs of the same seed can be checked to have explored the same programs with the same
outcome.

`--against TREE` measures this benchmark on another checkout (e.g. a worktree of the
commit before a speedup) and on this one, alternately in fresh processes (`--rounds`
pairs), and prints them side by side: the machine is shared, so only runs interleaved in
time are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
BACKENDS = {"exir": ("export", "to_edge", "to_executorch", "runtime"), "thunder": ("jit+calls",)}
CHECKS = {"exir": ("checks",), "thunder": ("fresh-trace", "oracles", "control")}
HARNESS = ("lane-inputs", "eager", "generation", "confirm")
# Counters that say what was explored; equal across runs of the same seed and code power.
OUTCOME_COUNTERS = (
    "export-skip",
    "unsupported-skip",
    "calls-checked",
    "call-outside-contract",
    "tensors-checked",
    "planned-mapped",
    "planned-unmapped",
    "runtime-static-only",
    "oracle-error",
    "known-divergences",
)


def measure(
    lane: str, examples: int, seed: int, fixes_switch: str, known: bool, warmup: int
) -> dict:
    """One exploration in this process; the figures as a dict (see `summary`). Works on
    older checkouts too (`--against`): without the corpus step, with the older module of
    the fixes switch."""
    import inspect

    import fuzz.explore

    try:
        from fuzz.prepare import prepare
    except ImportError:  # checkouts before fuzz/prepare.py
        from fuzz.campaign.prepare import prepare

    active = prepare(fixes_switch)
    try:  # what a campaign worker does once the stacks are imported (newer checkouts)
        from fuzz.prepare import lane_unavailable, settle_long_lived_objects
    except ImportError:
        pass
    else:
        lane_unavailable(lane, "cpu")
        settle_long_lived_objects()
    extra = {}
    if known and "corpus" in inspect.signature(fuzz.explore.explore).parameters:
        from fuzz.corpus import CorpusIndex, DirectoryCorpus

        extra["corpus"] = CorpusIndex.of([DirectoryCorpus(ROOT / "corpus")])
    if warmup:
        fuzz.explore.explore([lane], warmup, seed=seed + 1000, stop_on_first=False)
    t = time.perf_counter()
    out = fuzz.explore.explore([lane], examples, seed=seed, stop_on_first=False, **extra)
    wall = time.perf_counter() - t
    return {
        "lane": lane,
        "root": str(ROOT),
        "fixes": sorted(active),
        "known": bool(extra),
        "examples": out.examples,
        "skipped": out.skipped,
        "wall": wall,
        "timings": dict(out.timings),
        "counters": dict(out.counters),
    }


def summary(r: dict) -> dict:
    """The figures the report prints, from one measurement."""
    t, wall, lane = Counter(r["timings"]), r["wall"], r.get("lane", "exir")
    backend = sum(t[k] for k in BACKENDS[lane])
    checks = sum(t[k] for k in CHECKS[lane])
    harness = wall - backend
    return {
        "programs/worker-s": r["examples"] / wall,
        "backend": backend,
        "harness": harness,
        "harness/backend": harness / backend if backend else float("inf"),
        "checks/backend": checks / backend if backend else float("inf"),
        "exploring harness/backend": (harness - t["confirm"]) / backend
        if backend
        else float("inf"),
    }


def print_report(r: dict) -> None:
    t, wall, n, lane = Counter(r["timings"]), r["wall"], r["examples"], r.get("lane", "exir")
    s = summary(r)
    print(f"lane: {lane}   code: {r['root']}   fixes: {', '.join(r['fixes']) or 'none'}")
    print(
        f"{n} programs ({r['skipped']} skipped) in {wall:.1f} s: "
        f"{s['programs/worker-s']:.2f} programs per worker-second"
    )

    def line(name: str, secs: float, indent: int = 2) -> None:
        print(
            f"{' ' * indent}{name:<{44 - indent}}{secs:8.2f} s {100 * secs / wall:6.1f}%"
            f" {1000 * secs / n:8.1f} ms/program"
        )

    print(f"backend's own time {s['backend']:.2f} s ({100 * s['backend'] / wall:.1f}%)")
    for k in BACKENDS[lane]:
        line(k, t[k])
    print(f"harness's own time {s['harness']:.2f} s ({100 * s['harness'] / wall:.1f}%)")
    for k in CHECKS[lane]:
        line(k, t[k])
    for k in sorted(k for k in t if k.startswith("check:") and "/" not in k):
        line(k.removeprefix("check:"), t[k], 4)
        for part in sorted(p for p in t if p.startswith(k + "/")):
            line(part.removeprefix(k + "/"), t[part], 6)
    for k in HARNESS:
        line(k, t[k])
    timed = sum(t[k] for k in BACKENDS[lane] + CHECKS[lane] + HARNESS)
    line("untimed (copies, engine, hypothesis)", wall - timed)
    print(
        f"harness/backend {s['harness/backend']:.2f}  "
        f"(without confirmation re-runs {s['exploring harness/backend']:.2f}; "
        f"checks alone {s['checks/backend']:.2f})"
    )
    c = Counter(r["counters"])
    print(
        "divergences: "
        + (
            ", ".join(f"{k[11:]} {v}" for k, v in sorted(c.items()) if k.startswith("divergence:"))
            or "none"
        )
    )
    print("counters: " + ", ".join(f"{k} {c[k]}" for k in OUTCOME_COUNTERS))


def run_tree(tree: Path, args: argparse.Namespace) -> dict:
    """This benchmark on `tree`'s code, in a fresh process; its measurement."""
    cmd = [
        sys.executable,
        str(HERE),
        "--root",
        str(tree),
        "--lane",
        args.lane,
        "--examples",
        str(args.examples),
        "--seed",
        str(args.seed),
        "--fixes",
        args.fixes,
        "--warmup",
        str(args.warmup),
        "--json",
        "-",
        *(["--no-known"] if args.no_known else []),
    ]
    env = os.environ | {"PYTHONPATH": str(tree)}
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: benchmark failed\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(args: argparse.Namespace) -> None:
    before_tree, after_tree = Path(args.against).resolve(), ROOT
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(args.rounds):
        order = [("before", before_tree), ("after", after_tree)]
        for label, tree in order if i % 2 == 0 else order[::-1]:
            r = run_tree(tree, args)
            runs[label].append(r)
            s = summary(r)
            print(
                f"round {i + 1} {label:<6} {s['programs/worker-s']:.3f} programs/worker-s, "
                f"harness/backend {s['harness/backend']:.2f}",
                flush=True,
            )
    for label in ("before", "after"):
        print(f"\n=== {label}: last run ===")
        print_report(runs[label][-1])
    print("\n=== side by side (median over rounds) ===")
    keys = list(summary(runs["before"][0]))
    for k in keys:
        b = statistics.median(summary(r)[k] for r in runs["before"])
        a = statistics.median(summary(r)[k] for r in runs["after"])
        print(f"  {k:<28}{b:10.3f} -> {a:10.3f}  (x{a / b if b else float('nan'):.2f})")
    b, a = Counter(runs["before"][0]["counters"]), Counter(runs["after"][0]["counters"])
    diff = {k: (b[k], a[k]) for k in sorted(set(b) | set(a)) if b[k] != a[k]}
    print("counters that differ (before, after): " + (json.dumps(diff) if diff else "none"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lane", choices=sorted(BACKENDS), default="exir")
    parser.add_argument("--examples", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--fixes", default="on")
    parser.add_argument("--no-known", action="store_true", help="confirm known divergences too")
    parser.add_argument("--warmup", type=int, default=3, help="uncounted examples first")
    parser.add_argument("--json", help="write the measurement as JSON ('-': last stdout line)")
    parser.add_argument("--against", help="another checkout: measure both, alternately")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs with --against")
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.against:
        compare(args)
        return 0
    warnings.filterwarnings("ignore")
    r = measure(args.lane, args.examples, args.seed, args.fixes, not args.no_known, args.warmup)
    if args.json == "-":
        print(json.dumps(r))
        return 0
    print_report(r)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1))
    return 0


ROOT = (
    Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
    if "--root" in sys.argv
    else HERE.parents[1]
)
sys.path.insert(0, str(ROOT))

if __name__ == "__main__":
    raise SystemExit(main())
