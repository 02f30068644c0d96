"""The nightly report: `report.json` (everything, for tools) and `report.md` (a one-minute
read: outcome, throughput and skip rates per lane, blind spots, distinct bugs new vs
known, cache figures, coverage per lane, and where the time went).

`build_report` makes the document from the supervisor's data after triage; its fields are
a public contract (dashboards read them): add, never rename or drop.

Exit status (the document's "exit"): 2 on harness errors, else 1 when something new
diverged, else 3 when a lane has a blind spot (below), else 0.

Blind spots: a lane/device that skipped more than SKIP_RATE_LIMIT of the programs it was
given checks too little (a version bump that makes every program unsupported would
otherwise give a campaign that exits 0 having checked nothing); a Thunder lane that ran
at least MIN_PROGRAMS_FOR_HITS programs and saw no cache hit never tested the cache.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.supervisor import Supervisor
from fuzz.case import case_metadata

SKIP_RATE_LIMIT = 0.25
MIN_PROGRAMS_FOR_HITS = 5
EXIT_CLEAN, EXIT_NEW, EXIT_ERRORS, EXIT_BLIND = 0, 1, 2, 3


def registered_upstream(cases: Iterable[str]) -> dict[str, list[str]]:
    """Corpus cases (paths) grouped by the upstream bug they register: their UPSTREAM
    link, or the case itself when it has none. Several cases can register one upstream
    bug (other programs or symptoms of one root cause: pytorch/executorch#11086 has
    four), so this, not the number of cases, is how many distinct bugs were seen."""
    groups: dict[str, list[str]] = {}
    for case in sorted(set(cases)):
        try:
            link = case_metadata(Path(case).read_text()).get("UPSTREAM")
        except OSError:
            link = None
        groups.setdefault(link if isinstance(link, str) and link else case, []).append(case)
    return groups


def blind_spots(stats: dict[str, Any]) -> list[dict[str, Any]]:
    """Lanes that checked too little: see the module docstring."""
    out = []
    for key, st in stats["lanes"].items():
        skipped = sum(st["skipped"].values())
        if st["programs"] and skipped / st["programs"] > SKIP_RATE_LIMIT:
            out.append(
                {
                    "lane": key,
                    "what": "skip rate",
                    "value": round(skipped / st["programs"], 3),
                    "limit": SKIP_RATE_LIMIT,
                    "why": ", ".join(f"{r}: {n}" for r, n in st["skipped"].items()),
                }
            )
        if (
            key.startswith("thunder/")
            and st["ran"] >= MIN_PROGRAMS_FOR_HITS
            and not st["counters"].get("hits")
        ):
            out.append(
                {
                    "lane": key,
                    "what": "no cache hit",
                    "value": 0,
                    "limit": 1,
                    "why": f"{st['ran']} programs ran, none hit the cache",
                }
            )
    return out


def unmapped_share(stats: dict[str, Any]) -> dict[str, float]:
    """Per lane: the share of planned tensors the EXIR lane could not map to eager values
    (so did not check), when the lane counts them."""
    out = {}
    for key, st in stats["lanes"].items():
        c = st["counters"]
        total = c.get("tensors-mapped", 0) + c.get("tensors-unmapped", 0)
        if total:
            out[key] = round(c.get("tensors-unmapped", 0) / total, 4)
    return out


def build_report(sup: Supervisor) -> dict[str, Any]:
    """The report document, from the supervisor's data after triage."""
    s = sup.settings
    wall = time.time() - sup.start
    stats = sup.stats.to_json()
    kinds: dict[str, dict[str, int]] = {}

    def row(kind):
        return kinds.setdefault(
            kind, {"programs": 0, "new": 0, "known": 0, "duplicate": 0, "flaky": 0}
        )

    for f in sup.findings.values():
        if f.status == "flaky":
            row(f.kind)["flaky"] += 1
        for sig in f.signatures:
            row(sig.kind)[f.sig_status.get(sig.digest, "known")] += 1
    for lane_stats in stats["lanes"].values():
        for kind, n in lane_stats["kinds"].items():
            row(kind)["programs"] += n
    new = [f for f in sup.findings.values() if f.status == "new"]
    spots = blind_spots(stats)
    code = EXIT_ERRORS if sup.errors else EXIT_NEW if new else EXIT_BLIND if spots else EXIT_CLEAN
    programs_per_bucket = sup.stats.buckets()
    bugs = [
        {
            "bucket": f.bucket,
            "kind": f.kind,
            "status": f.status,
            "path": f.path,
            "programs": programs_per_bucket.get(f.bucket, 0),
            "sightings": f.sightings,
            "known_as": f.known_as,
            "shrink_s": round(sup.shrink_seconds[f.bucket], 2),
        }
        for f in sorted(
            sup.findings.values(), key=lambda f: ({"new": 0}.get(f.status, 1), f.bucket)
        )
    ]
    known_bugs: Counter = Counter()
    for lane_stats in sup.stats.lanes.values():
        known_bugs.update(lane_stats.known_as)
    shrink_total = sum(sup.shrink_seconds.values())
    on_known = sum(
        sup.shrink_seconds[f.bucket]
        for f in sup.findings.values()
        if f.status in ("known", "duplicate")
    )
    hello = sup.hello
    return {
        "command": "nightly",
        "exit": code,
        "seed": s.seed,
        "budget_s": s.budget,
        "wall_s": round(wall, 2),
        "engine": s.engine,
        "workers": len(sup.slots),
        "worker_restarts": sum(x.restarts for x in sup.slots),
        "lanes": list(s.lanes),
        "devices": list(s.devices),
        "fixes": {"switch": s.fixes, "active": hello.fixes if hello else {}},
        "versions": hello.versions if hello else {},
        "harness": sup.harness,
        "max_examples": s.max_examples,
        "database": s.database,
        "corpus": list(s.corpus),
        "cases_dir": str(s.into or s.out / "cases"),
        "programs": {
            "explored": sup.stats.explored,
            "shrink_runs": sup.stats.shrink_runs,
            "per_second": round(sup.stats.explored / max(wall, 1e-9), 3),
        },
        "crashes": sup.crashes,
        "hangs": sup.hangs,
        "unavailable": sup.unavailable,
        "divergence_kinds": kinds,
        "findings": [
            f.to_json()
            for f in sorted(
                sup.findings.values(), key=lambda f: ({"new": 0}.get(f.status, 1), f.bucket)
            )
        ],
        "bugs": bugs,
        "known_bugs": dict(known_bugs.most_common()),
        "registered_upstream": registered_upstream(
            [*known_bugs, *(c for f in sup.findings.values() for c in f.known_as)]
        ),
        "new_cases": [f.path for f in new],
        "blind_spots": spots,
        "coverage": sup.stats.coverage(),
        "unmapped_share": unmapped_share(stats),
        "shrinking": {
            "seconds": round(shrink_total, 2),
            "on_known_s": round(on_known, 2),
            "share_of_worker_time": round(shrink_total / max(sup.worker_seconds, 1e-9), 4),
        },
        "nodes": {host: dict(c) for host, c in sup.hosts.items()},
        "stats": stats,
        "time": {
            "wall": round(wall, 2),
            "worker_seconds": round(sup.worker_seconds, 2),
            "worker_startup": round(sup.startup_seconds, 2),
            "engine_startup": round(sup.engine_startup_seconds, 2),
        },
        "errors": sup.errors,
        "events": sup.events[-200:],
    }


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_reports(out: Path, doc: dict[str, Any]) -> None:
    _atomic_write(out / "report.json", json.dumps(doc, indent=2, default=str) + "\n")
    _atomic_write(out / "report.md", render_markdown(doc))
