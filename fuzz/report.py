"""The nightly report: `report.json` (everything, for tools) and `report.md` (a one-minute
read: outcome, throughput and skip rates per lane, divergences new vs known, cache
figures, coverage of op families and shape decisions, and where the time went).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_reports(out: Path, doc: dict[str, Any]) -> None:
    _atomic_write(out / "report.json", json.dumps(doc, indent=2, default=str) + "\n")
    _atomic_write(out / "report.md", render_markdown(doc))


def _pct(n: float, d: float) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


OUTCOME = {0: "nothing new diverged", 1: "NEW divergences found", 2: "harness errors"}


def render_markdown(doc: dict[str, Any]) -> str:
    wall = doc["wall_s"]
    stats = doc["stats"]
    fixes = doc["fixes"]
    active = ", ".join(f"{k} ({v})" for k, v in sorted(fixes["active"].items())) or "none"
    versions = ", ".join(f"{k} {v}" for k, v in doc["versions"].items())
    lines = [
        "# Nightly fuzz report",
        "",
        f"**Exit {doc['exit']}: {OUTCOME.get(doc['exit'], '?')}.** "
        f"{doc['programs']['explored']} programs explored in {wall:.0f} s "
        f"({doc['programs']['per_second']:.2f} programs/s, budget {doc['budget_s']:g} s), "
        f"{doc['programs']['shrink_runs']} more while shrinking; "
        f"{doc['workers']} worker(s), {doc['worker_restarts']} restart(s), "
        f"{doc['crashes']} crash(es), {doc['hangs']} hang(s).",
        "",
        f"- campaign seed: `{doc['seed']}` (rerun: `python -m fuzz nightly --hypothesis-seed "
        f"{doc['seed']} --lanes {','.join(doc['lanes'])} --devices {','.join(doc['devices'])} "
        f"--fixes {fixes['switch']}"
        + (f" --max-examples {doc['max_examples']}" if doc.get("max_examples") else "")
        + "`)",
        f"- fixes: `{fixes['switch']}` -> {active}",
        f"- versions: {versions}",
        f"- new cases go to `{doc['cases_dir']}`; known findings come from "
        f"{', '.join(f'`{c}`' for c in doc['corpus'])}",
        "",
    ]
    if doc["errors"]:
        lines += ["## Harness errors", ""]
        for e in doc["errors"][:10]:
            first, *rest = e.strip().splitlines() or [""]
            lines.append(f"- {first[:300]}")
        if len(doc["errors"]) > 10:
            lines.append(f"- ... and {len(doc['errors']) - 10} more (report.json)")
        lines.append("")

    lines += ["## Lanes", ""]
    rows = []
    for key, st in stats["lanes"].items():
        skipped = sum(st["skipped"].values())
        c = st["counters"]
        rows.append(
            [
                key,
                st["programs"],
                f"{st['programs'] / max(wall, 1e-9):.2f}",
                st["ran"],
                f"{skipped} ({_pct(skipped, st['programs'])})",
                c.get("unsupported", 0),
                c.get("export-skip", 0),
                st["divergent"],
                st["errors"],
                c.get("hits", 0),
                c.get("misses", 0),
                c.get("missed-legal-hits", 0),
            ]
        )
    lines += _table(
        [
            "lane/device",
            "programs",
            "programs/s",
            "ran",
            "skipped",
            "unsupported",
            "export skips",
            "divergent",
            "harness errors",
            "cache hits",
            "misses",
            "missed legal hits",
        ],
        rows,
    )
    for key, st in stats["lanes"].items():
        if st["skipped"]:
            reasons = "; ".join(
                f"{r}: {n}" for r, n in sorted(st["skipped"].items(), key=lambda kv: -kv[1])[:6]
            )
            lines.append(f"\nSkips on {key}: {reasons}.")
    if doc.get("unavailable"):
        for key, why in doc["unavailable"].items():
            lines.append(f"\n{key} did not run: {why[:300]}")
    lines.append("")

    lines += ["## Divergences", ""]
    kinds = doc["divergence_kinds"]
    if kinds:
        lines += _table(
            [
                "kind",
                "programs showing it",
                "new signatures",
                "known",
                "duplicates in this run",
                "flaky",
            ],
            [
                [
                    f"`{k}`",
                    v.get("programs", 0),
                    v.get("new", 0),
                    v.get("known", 0),
                    v.get("duplicate", 0),
                    v.get("flaky", 0),
                ]
                for k, v in sorted(kinds.items())
            ],
        )
        lines.append("")
    else:
        lines += ["None.", ""]
    for status, title in (
        ("new", "New (case files written)"),
        ("known", "Known"),
        ("duplicate", "Duplicates of a finding above"),
        ("flaky", "Did not reproduce"),
    ):
        group = [f for f in doc["findings"] if f["status"] == status]
        if not group:
            continue
        lines.append(f"**{title}:**")
        for f in group:
            d = f["divergences"][0]
            where = f"`{f['path']}`" if f["path"] else ""
            details = " ".join(str(d["details"]).split())[:160]
            extra = f"; matches {', '.join(f['known_as'])}" if f["known_as"] else ""
            conf = f"; {f['confirmation']}" if f.get("confirmation") else ""
            lines.append(
                f"- {where} `{d['kind']}` at {d['stage']}: {details} "
                f"(shrunk: {f['shrunk']}; seen {f['sightings']}x{extra}{conf})"
            )
        lines.append("")

    lines += ["## Coverage", ""]
    explored = max(stats["explored"], 1)
    fam = stats["family_programs"]
    lines.append(
        "Op families (share of programs using each): "
        + (", ".join(f"{k} {_pct(v, explored)}" for k, v in fam.items()) or "none")
        + "."
    )
    lines.append("")
    lines.append(
        "Shape decisions exercised (count): "
        + (", ".join(f"{k} {v}" for k, v in stats["decisions"].items()) or "none")
        + "."
    )
    lines.append("")

    lines += ["## Where the time went", ""]
    t = dict(stats["time"])
    worker_s = doc["time"]["worker_seconds"]
    t["worker startup (imports)"] = doc["time"]["worker_startup"]
    rows = [
        [k, f"{v:.1f}", _pct(v, worker_s)]
        for k, v in sorted(t.items(), key=lambda kv: -kv[1])
        if v >= 0.05
    ]
    lines.append(
        f"Worker-seconds in all: {worker_s:.1f} (wall {wall:.1f} s). Lane stages "
        "are explored programs only; shrink runs are booked under `shrinking`."
    )
    lines.append("")
    lines += _table(["what", "seconds", "share of worker time"], rows)
    lines.append("")
    return "\n".join(lines)
