"""Where a nightly's worker time went, per lane, read from its report.json (the way issue
#10 measured its baseline: one worker, one lane, `--budget 150 --hypothesis-seed 5`).

    python benchmarks/nightly_shares.py OUT/report.json [OTHER/report.json ...]
    python benchmarks/nightly_shares.py --run TREE [TREE ...] [--lanes thunder,exir]
        [--budget 150] [--seed 5]

With `--run`, runs `python -m fuzz nightly --lanes LANE --workers 1 --budget B
--hypothesis-seed S --database none` in each checkout TREE for each lane, one after the
other (trees alternate per lane, so runs of one lane are close in time), and reads the
reports. For each report and lane it prints:

  * explored programs, and exploring worker-seconds (worker time minus shrinking and
    worker start-up);
  * programs per exploring worker-second;
  * the backend's own seconds (bench_lane.BACKENDS: Thunder jit+calls; EXIR export,
    to_edge, to_executorch, runtime) and the harness's (exploring time minus
    the backend's): their ratio, and the largest harness stages;
  * shrinking's share of worker time.

It reads reports of older checkouts too (their `stats.lanes[...].timings`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench_lane import BACKENDS  # the backend's own stages, per lane (one definition)


def shares(report: dict) -> list[dict]:
    """One row per lane of a report (only lanes that explored programs)."""
    time, stats = report["time"], report["stats"]
    worker_s = time.get("worker_seconds", time.get("wall", 0.0))
    startup = time.get("worker_startup", 0.0)
    shrinking = stats.get("time", {}).get("shrinking", 0.0)
    exploring = worker_s - shrinking - startup
    rows = []
    for key, lane in stats["lanes"].items():
        if not lane.get("programs"):
            continue
        name = key.split("/")[0]
        t = Counter(lane.get("timings", {}))
        backend = sum(t[k] for k in BACKENDS[name])
        harness_stages = {
            k: v
            for k, v in t.items()
            if k not in BACKENDS[name] and "/" not in k and not k.startswith("check:")
        }
        harness = exploring - backend  # generation and untimed work included
        rows.append(
            {
                "report": report.get("_path", "?"),
                "lane": key,
                "programs": lane["programs"],
                "exploring_s": exploring,
                "programs/exploring-s": lane["programs"] / exploring if exploring else 0.0,
                "backend_s": backend,
                "harness/backend": harness / backend if backend else float("inf"),
                "stages": dict(sorted(harness_stages.items(), key=lambda kv: -kv[1])[:4]),
                "shrinking share": shrinking / worker_s if worker_s else 0.0,
            }
        )
    return rows


def print_rows(rows: list[dict]) -> None:
    if len(rows) > 1:
        print(f"{rows[0]['report']}: several lanes share its exploring time, so the rates and")
        print("ratios below are not per lane; run one lane per nightly (--run) for those")
    for r in rows:
        stages = ", ".join(f"{k} {v:.1f}s" for k, v in r["stages"].items())
        print(
            f"{r['report']}  {r['lane']}: {r['programs']} programs in {r['exploring_s']:.1f} "
            f"exploring worker-s = {r['programs/exploring-s']:.2f}/s; backend "
            f"{r['backend_s']:.1f}s, harness/backend {r['harness/backend']:.2f} "
            f"({stages}); shrinking {100 * r['shrinking share']:.0f}% of worker time"
        )


def run(tree: Path, lane: str, budget: int, seed: int, out: Path) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "fuzz",
        "nightly",
        "--lanes",
        lane,
        "--workers",
        "1",
        "--budget",
        str(budget),
        "--hypothesis-seed",
        str(seed),
        "--database",
        "none",
        "--out",
        str(out),
        "--quiet",
    ]
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    path = out / "report.json"
    if not path.exists():
        raise SystemExit(
            f"{tree}: nightly wrote no report (exit {proc.returncode})\n{proc.stderr[-2000:]}"
        )
    report = json.loads(path.read_text())
    report["_path"] = f"{tree.name}:{lane}"
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", help="report.json files")
    parser.add_argument("--run", nargs="+", metavar="TREE", help="checkouts to run nightlies in")
    parser.add_argument("--lanes", default="thunder,exir")
    parser.add_argument("--budget", type=int, default=150)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    reports = []
    for p in args.reports:
        report = json.loads(Path(p).read_text())
        report["_path"] = p
        reports.append(report)
    if args.run:
        with tempfile.TemporaryDirectory() as tmp:
            for lane in args.lanes.split(","):
                for i, tree in enumerate(args.run):
                    out = Path(tmp) / f"{i}-{lane}"
                    reports.append(run(Path(tree).resolve(), lane, args.budget, args.seed, out))
                    print_rows(shares(reports[-1]))
                    sys.stdout.flush()
        print()
    for report in reports:
        print_rows(shares(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
