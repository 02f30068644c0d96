"""Campaign throughput per engine and worker count, side by side in one run.

    python benchmarks/bench_engines.py [--configs local:1,local:2,ray:2] [--examples 60]
                                       [--lanes thunder] [--fixes on] [--repeat 2]

Runs the same seeded campaign (`python -m fuzz nightly --max-examples N`, no database, an
empty corpus, one fresh output folder per run) for each ENGINE:WORKERS config, the configs
alternating within each repeat, and prints per config: programs explored per second of the
campaign's wall time (best and worst repeat), the engine's own start-up (joining or
starting Ray) and the workers' start-up (process or actor start to its first message), and
the ratio of each config's best programs/s to the first config's. Wall time includes
start-up, so a short campaign overstates the cost of starting; both are printed. The Ray
engine starts its own Ray instance on loopback.
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


def campaign(engine: str, workers: int, args, out: Path) -> dict:
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
        str(workers),
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
        "--quiet",
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    doc = json.loads((out / "report.json").read_text())
    return {
        "rc": proc.returncode,
        "wall": wall,
        "explored": doc["programs"]["explored"],
        "per_s": doc["programs"]["explored"] / wall,
        "worker_startup": doc["time"]["worker_startup"] / max(doc["workers"], 1),
        "engine_startup": doc["time"].get("engine_startup", 0.0),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--configs", default="local:1,local:2,ray:2")
    p.add_argument("--examples", type=int, default=60)
    p.add_argument("--lanes", default="thunder")
    p.add_argument("--fixes", default="on")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    configs = [(c.split(":")[0], int(c.split(":")[1])) for c in args.configs.split(",")]
    runs: dict[tuple[str, int], list[dict]] = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for engine, workers in configs if i % 2 == 0 else configs[::-1]:
                r = campaign(engine, workers, args, Path(tmp) / f"{engine}-{workers}-{i}")
                runs[(engine, workers)].append(r)
                print(
                    f"{engine}:{workers} run {i}: {r['explored']} programs in {r['wall']:.1f} s"
                    f" = {r['per_s']:.2f}/s; engine start-up {r['engine_startup']:.1f} s, "
                    f"worker start-up {r['worker_startup']:.1f} s (exit {r['rc']})",
                    flush=True,
                )
    print(
        f"\nlanes={args.lanes} fixes={args.fixes} examples={args.examples} seed={args.seed} "
        f"repeat={args.repeat}"
    )
    first = max(r["per_s"] for r in runs[configs[0]])
    for (engine, workers), rs in runs.items():
        best, worst = max(r["per_s"] for r in rs), min(r["per_s"] for r in rs)
        print(
            f"  {engine}:{workers}  {worst:.2f}-{best:.2f} programs/s "
            f"(x{best / first:.2f} of {configs[0][0]}:{configs[0][1]}); "
            f"engine start-up {min(r['engine_startup'] for r in rs):.1f} s, "
            f"worker start-up {min(r['worker_startup'] for r in rs):.1f} s"
        )


if __name__ == "__main__":
    main()
