"""Fault-injection benchmark (issue #17, item 7): does the nightly campaign find our own
injected bugs (tests/faults/), how fast, and does it mistake them for registered ones?

    python benchmarks/fault_bench.py [--faults a,b] [--budget 120] [--workers 2] [--seed 1]
                                     [--out fault-bench-out] [--reuse]

For each lane of the chosen faults, one baseline nightly without any plugin; then, per
fault, the same nightly with `--plugin tests.faults.<name>`:

    python -m fuzz nightly --budget B --workers W --lanes <lane> --hypothesis-seed S
        --database none --out OUT/<name> [--plugin tests.faults.<name>]

The rule that attributes findings to the fault (simple and honest): a finding counts for
the fault when its bucket does not appear in the baseline run of its lane (same seed,
budget, workers), or when it does but its case file, replayed without the plugin,
shows no divergence that a registered bug does not explain (`python -m fuzz.outcome
--corpus corpus CASE LANE cpu`, with this checkout; buckets are coarse,
and a baseline false alarm in the flip fault's bucket hid a found flip fault). Per fault,
from OUT/<name>/report.json:

* found: yes when a finding with status "new" is the fault's by the rule above;
* new buckets: those findings; distinct bugs: report.json's merged "distinct_bugs"
  entries with such a finding when the report has them, else the new buckets;
* first detection: the time of the first "new bucket" event (supervisor events) of a
  new finding's bucket or of a bucket merged into one (triage files the smallest
  program of a root cause, not the earliest), seconds since the campaign started; else
  n/a;
* known by mistake: findings with status "known" whose bucket is not in the baseline
  (the fault's divergence taken for a registered corpus bug; a "duplicate" is a second
  bucket of a new finding, not a registered bug), and how many "drifted" (new when
  explored, a registered bug after shrinking: listed and exit 1, but not filed);
* registered bugs seen only with the fault: corpus cases counted in report.json
  "known_bugs" (recognised while exploring, never filed) that the baseline did not count,
  with their program counts. Suggestive, not proof: the fault's divergences may match a
  registered bug's pattern, or the faulty run simply explored other programs.

`--baseline replay` runs no baseline: a finding is the fault's only when its case file
replays without the plugin as above (for a machine lent for minutes; registered bugs are
then never counted as the fault's, so "known by mistake" reads 0).

Writes OUT/faults.md (the table and the commands) and OUT/faults.json, prints the table.
Runs are sequential (each nightly uses W workers); `--reuse` keeps a run whose
report.json exists (to re-tabulate without re-running).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.faults import FAULTS  # noqa: E402

KNOWN = ("known", "duplicate")
_EVENT = re.compile(r"^\s*(?P<t>[0-9.]+)s new bucket (?P<bucket>.+) \((?P<worker>[^()]*)\)\s*$")


def nightly_command(args, lane: str, out: Path, plugin: str | None) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "fuzz",
        "nightly",
        "--budget",
        str(args.budget),
        "--workers",
        str(args.workers),
        "--lanes",
        lane,
        "--hypothesis-seed",
        str(args.seed),
        "--database",
        "none",
        "--out",
        str(out),
        "--quiet",
    ]
    if plugin:
        cmd += ["--plugin", plugin]
    return cmd + list(args.extra)


def run_nightly(args, lane: str, out: Path, plugin: str | None) -> dict[str, Any]:
    """Runs one nightly (unless --reuse finds its report) and returns its report.json, or
    {"error": ...} when there is none."""
    report = out / "report.json"
    cmd = nightly_command(args, lane, out, plugin)
    shown = " ".join(["python"] + cmd[1:])
    if not (args.reuse and report.is_file()):
        if report.is_file():
            report.unlink()
        print(f"[fault_bench] {shown}", file=sys.stderr, flush=True)
        start = time.time()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        (out.parent / f"{out.name}.log").write_text(proc.stdout + proc.stderr)
        print(
            f"[fault_bench]   exit {proc.returncode} after {time.time() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    if not report.is_file():
        return {"error": f"no report.json (see {out.name}.log)", "command": shown}
    doc = json.loads(report.read_text())
    doc["_command"] = shown
    return doc


def buckets_of(doc: dict[str, Any]) -> set[str]:
    return {f["bucket"] for f in doc.get("findings", [])}


def first_detection(doc: dict[str, Any], buckets: set[str]) -> float | None:
    for line in doc.get("events", []):
        m = _EVENT.match(line)
        if m and m.group("bucket") in buckets:
            return float(m.group("t"))
    return None


def diverges_without_plugins(path: str | None, lane: str) -> bool | None:
    """Whether a finding's case file shows a divergence that no registered bug explains
    when replayed without any plugin (`python -m fuzz.outcome --corpus corpus CASE LANE
    cpu`); None when that cannot be told. A registered bug the program also shows does
    not count: a faulty night's program showing the fault's wrong shape and a registered
    unchecked contract was not the fault's while any divergence counted."""
    if not path or not Path(path).is_file():
        return None
    corpus = str(ROOT / "corpus")
    cmd = [sys.executable, "-m", "fuzz.outcome", "--corpus", corpus, path, lane, "cpu"]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("OUTCOME "):
            outcome = json.loads(line[len("OUTCOME ") :])
            return any(not d.get("known_as") for d in outcome.get("divergences", []))
    return None


def score(name: str, doc: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """One row of the table: what the campaign with fault `name` found beyond the
    baseline of its lane."""
    module, lane, what, where = FAULTS[name]
    row: dict[str, Any] = {"fault": name, "lane": lane, "where": where, "what": what}
    if "error" in doc:
        return {**row, "error": doc["error"], "command": doc.get("command")}
    base = buckets_of(baseline)
    # Without a baseline run (--baseline replay) every finding is judged by replay alone.
    replay_only = bool(baseline.get("replay_only"))
    # Every new finding's case is replayed without the plugin (as above). Its bucket is
    # not enough either way: buckets are coarse, and a baseline false alarm in the same one
    # hid a found fault; a bucket the baseline night lacks may still be stock (a stock hang
    # the baseline did not meet was scored as the fault's).
    replayed = {
        f["path"]: diverges_without_plugins(f.get("path"), lane)
        for f in doc.get("findings", [])
        if f["status"] in ("new", "drifted")
    }
    # A finding merged into (or a duplicate of) a case of the fault's is the fault's too:
    # it has no case file of its own to replay (until 2026-12-05 such findings were
    # dropped under --baseline replay, and a night whose filed case came from a later
    # bucket than the first one that showed the fault read the later time).
    theirs_paths = {p for p, diverges in replayed.items() if diverges is False}

    def is_the_faults(f: dict[str, Any]) -> bool:
        if f.get("merged_into") in theirs_paths:
            return True
        told = replayed.get(f.get("path")) if f["status"] in ("new", "drifted") else None
        if told is not None:
            return told is False
        return f["bucket"] not in base and not replay_only  # replay cannot tell: the bucket

    findings = [f for f in doc.get("findings", []) if is_the_faults(f)]
    new = [f for f in findings if f["status"] == "new"]
    new_buckets = {f["bucket"] for f in new}
    attributable = {f["bucket"] for f in findings if f["status"] not in KNOWN}
    if "distinct_bugs" in doc:
        theirs = {f.get("path") for f in findings} - {None}
        bugs = [
            b
            for b in doc["distinct_bugs"]
            if (
                not replay_only
                and {b.get("bucket"), *(p.get("bucket") for p in b.get("programs", []))} - base
            )
            or {b.get("path"), *(p.get("path") for p in b.get("programs", []))} & theirs
        ]
        distinct = len(bugs)
        distinct_source = "distinct_bugs"
    else:
        distinct, distinct_source = len(new), "new findings"
    mistaken = [f for f in findings if f["status"] == "known"]
    drifted = [f for f in findings if f["status"] == "drifted"]
    known_here, known_base = doc.get("known_bugs", {}), baseline.get("known_bugs", {})
    newly_known = (
        {}
        if replay_only
        else {Path(c).stem: n for c, n in known_here.items() if c not in known_base}
    )
    # A bucket merged into a new finding (one root cause, fuzz/campaign/triage.py) saw the
    # fault too, often first: the case filed is the smallest program, not the earliest.
    new_paths = {f.get("path") for f in new}
    merged = {f["bucket"] for f in findings if f.get("merged_into") in new_paths}
    detected = first_detection(doc, (new_buckets | merged) or attributable)
    return {
        **row,
        "found": bool(new),
        "new_buckets": len(new),
        "distinct_bugs": distinct,
        "distinct_source": distinct_source,
        "first_detection_s": detected,
        "known_by_mistake": len(mistaken),
        "drifted": len(drifted),
        "known_by_mistake_as": sorted({c for f in mistaken for c in f.get("known_as", [])}),
        # registered bugs (corpus case -> programs) counted in this run but not in the
        # baseline: the fault's divergences may match them, or the run simply explored
        # other programs (suggestive, not proof; "known_by_mistake" is the finding-level
        # count)
        "registered_only_here": newly_known,
        "kinds": sorted({f["item"][0] for f in new}),
        "new_findings": [
            {"bucket": f["bucket"], "status": f["status"], "path": f.get("path")} for f in new
        ],
        "programs": doc.get("programs", {}).get("explored"),
        "exit": doc.get("exit"),
        "wall_s": doc.get("wall_s"),
        "command": doc.get("_command"),
    }


def markdown(rows: list[dict[str, Any]], baselines: dict[str, dict[str, Any]], args) -> str:
    lines = [
        "| fault | lane | found as new | new buckets | distinct bugs | first detection "
        "| known by mistake | registered bugs seen only with the fault | kinds | programs "
        "| exit |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| `{r['fault']}` | {r['lane']} | error: {r['error']} |||||||||")
            continue
        t = r["first_detection_s"]
        mistaken = str(r["known_by_mistake"]) + (
            f" (+{r['drifted']} drifted)" if r.get("drifted") else ""
        )
        if r["known_by_mistake_as"]:
            mistaken += " (" + ", ".join(f"`{c}`" for c in r["known_by_mistake_as"]) + ")"
        only = ", ".join(f"`{c}` ({n})" for c, n in r["registered_only_here"].items())
        lines.append(
            f"| `{r['fault']}` | {r['lane']} | {'yes' if r['found'] else 'no'} "
            f"| {r['new_buckets']} | {r['distinct_bugs']} "
            f"| {'n/a' if t is None else f'{t:.1f} s'} | {mistaken} | {only or '-'} "
            f"| {', '.join(r['kinds']) or '-'} | {r['programs']} | {r['exit']} |"
        )
    lines.append("")
    for lane, b in sorted(baselines.items()):
        if b.get("replay_only"):
            lines.append(
                f"- no baseline run for {lane} (`--baseline replay`): a finding is the "
                "fault's when its case file, replayed without the plugin, shows only "
                "registered bugs; a known "
                "finding is never counted as the fault's (known by mistake reads 0)"
            )
            continue
        if "error" in b:
            lines.append(f"- baseline {lane}: error: {b['error']}")
            continue
        lines.append(
            f"- baseline {lane}: {b.get('programs', {}).get('explored')} programs, "
            f"{len(buckets_of(b))} buckets ({sum(f['status'] == 'new' for f in b['findings'])} "
            f"new), exit {b.get('exit')}: `{b.get('_command')}`"
        )
    lines.append(
        "- first detection: seconds from the campaign's start (worker start-up included) "
        "to the first `new bucket` event of a bucket of the fault's findings"
    )
    lines.append(
        f"- each fault: the baseline's command with `--plugin tests.faults.<name>` "
        f"and `--out {args.out}/<name>` (budget {args.budget} s, {args.workers} worker(s), "
        f"seed {args.seed})"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/fault_bench.py", description=__doc__)
    p.add_argument("--faults", default="", help="comma-separated fault names (default: all)")
    p.add_argument("--budget", type=int, default=120)
    p.add_argument("--workers", default="2")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("fault-bench-out"))
    p.add_argument("--reuse", action="store_true", help="keep runs whose report.json exists")
    p.add_argument(
        "--baseline",
        choices=("run", "replay"),
        default="run",
        help="run: a baseline nightly per lane (the rule above); replay: none, and a finding "
        "is the fault's only when its case replays without the plugin as above (half the "
        "time, for a machine lent briefly)",
    )
    p.add_argument("--list", action="store_true", help="print the faults and exit")
    p.add_argument("extra", nargs="*", help="more nightly flags, after --")
    args = p.parse_args(argv)
    if args.list:
        for name, (_module, lane, what, where) in FAULTS.items():
            print(f"{name:26} {lane:8} {where}\n{'':36}{what}")
        return 0
    names = [n.strip() for n in args.faults.split(",") if n.strip()] or list(FAULTS)
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        p.error(f"unknown faults {unknown}; known: {', '.join(FAULTS)}")
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    lanes = sorted({FAULTS[n][1] for n in names})
    if args.baseline == "replay":
        baselines = {
            lane: {"findings": [], "known_bugs": {}, "replay_only": True} for lane in lanes
        }
    else:
        baselines = {
            lane: run_nightly(args, lane, args.out / f"baseline-{lane}", None) for lane in lanes
        }
    rows = []
    for name in names:
        module, lane = FAULTS[name][0], FAULTS[name][1]
        doc = run_nightly(args, lane, args.out / name, module)
        rows.append(score(name, doc, baselines[lane]))
    table = markdown(rows, baselines, args)
    (args.out / "faults.md").write_text(
        f"# Fault benchmark, {started:%Y-%m-%d %H:%M} UTC\n\n"
        f"`python benchmarks/fault_bench.py {' '.join(argv or sys.argv[1:])}`\n\n" + table
    )
    (args.out / "faults.json").write_text(
        json.dumps(
            {
                "started": started.isoformat(),
                "budget": args.budget,
                "workers": args.workers,
                "seed": args.seed,
                "baselines": {
                    lane: {
                        "buckets": sorted(buckets_of(b)),
                        "known_bugs": b.get("known_bugs", {}),
                        "programs": b.get("programs", {}).get("explored"),
                        "exit": b.get("exit"),
                        "command": b.get("_command"),
                        "error": b.get("error"),
                    }
                    for lane, b in baselines.items()
                },
                "faults": rows,
            },
            indent=2,
            default=str,
        )
        + "\n"
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
