"""The cost of the Ray engine against the local one, side by side in one run.

    python benchmarks/bench_engines.py [--examples 60] [--workers 2] [--lanes thunder]
                                       [--fixes on] [--repeat 2]

Runs the same seeded campaign (`--max-examples`, no database, nothing filed) with
`--engine local` and with `--engine ray` (a local Ray instance on loopback, started by
the campaign itself), alternately, `--repeat` times each, and prints per engine:
programs explored per second of the campaign's wall time (min and max over the repeats),
the time to the first explored program (start-up: worker processes or actors importing
the stack, plus Ray's own start), and the ratio ray/local. The wall time includes
start-up, so a short campaign overstates the engine's steady-state cost: both figures are
printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def campaign(engine: str, args, out: Path) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "fuzz",
        "nightly",
        "--engine",
        engine,
        "--lanes",
        args.lanes,
        "--devices",
        "cpu",
        "--workers",
        str(args.workers),
        "--fixes",
        args.fixes,
        "--max-examples",
        str(args.examples),
        "--hypothesis-seed",
        str(args.seed),
        "--budget",
        "900",
        "--database",
        "none",
        "--corpus",
        str(out / "no-corpus"),
        "--out",
        str(out),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    doc = json.loads((out / "report.json").read_text())
    startup = doc["time"]["worker_startup"] / max(doc["workers"], 1)
    return {
        "rc": proc.returncode,
        "wall": wall,
        "explored": doc["programs"]["explored"],
        "per_s": doc["programs"]["explored"] / wall,
        "startup": startup,
        "engine": doc["time"].get("engine_startup", 0.0),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--examples", type=int, default=60)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--lanes", default="thunder")
    p.add_argument("--fixes", default="on")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    runs: dict[str, list[dict]] = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for engine in ("local", "ray"):
                result = campaign(engine, args, Path(tmp) / f"{engine}-{i}")
                runs[engine].append(result)
                print(
                    f"{engine:>5} run {i}: {result['explored']} programs in {result['wall']:.1f} s "
                    f"= {result['per_s']:.2f}/s; engine start-up {result['engine']:.1f} s, "
                    f"worker start-up {result['startup']:.1f} s (exit {result['rc']})",
                    flush=True,
                )
    best = {e: max(r["per_s"] for r in rs) for e, rs in runs.items()}
    worst = {e: min(r["per_s"] for r in rs) for e, rs in runs.items()}
    start = {e: min(r["startup"] for r in rs) for e, rs in runs.items()}
    engine_start = {e: min(r["engine"] for r in rs) for e, rs in runs.items()}
    print(
        f"\nlanes={args.lanes} fixes={args.fixes} workers={args.workers} "
        f"examples={args.examples} seed={args.seed}"
    )
    for e in runs:
        print(
            f"  {e:>5}: {worst[e]:.2f}-{best[e]:.2f} programs/s (wall, start-up included); "
            f"engine start-up {engine_start[e]:.1f} s, worker start-up {start[e]:.1f} s"
        )
    print(f"  ray/local programs/s (best runs): {best['ray'] / best['local']:.2f}")


if __name__ == "__main__":
    main()
