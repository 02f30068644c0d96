"""DIR/README.md: the triage index of an export, one row per root cause.

Each row: the tracker that owns the bug (from the stage where the script reproduces),
the issue title, what upstream knows (unreported, reported #N, fixed in a release, a
limitation: fuzz.corpus.upstream_status, the same data docs/bugs.md shows), whether the
script reproduces on the stack it ran on, its size, and the cases folded into it
(VARIANT_OF). The figures the export is judged by (median and largest script) close it.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from fuzz.corpus import root_causes
from fuzz.repro_export.environment import pins


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_index(out: Path, paths: list[Path], exported: list) -> Path:
    by_case = {e.case: e for e in exported}
    causes = [r for r in root_causes(paths) if r.name in by_case]
    rows = []
    for cause in sorted(causes, key=lambda r: (by_case[r.name].tracker, r.name)):
        e = by_case[cause.name]
        variants = [v for v in cause.variants if v in by_case]
        folded = ", ".join(f"[{v}]({v}/ISSUE.md) ({by_case[v].outcome})" for v in variants)
        rows.append(
            "| "
            + " | ".join(
                [
                    e.tracker,
                    f"[{_cell(cause.title)}]({cause.name}/ISSUE.md)",
                    cause.status,
                    e.outcome,
                    str(e.lines),
                    folded or "",
                ]
            )
            + " |"
        )
    sizes = [e.lines for e in exported]
    stacks = ", ".join(f"{p} {v}" for p, v in (pins("exir") | pins("thunder")).items())
    text = [
        "# Repros",
        "",
        f"{len(exported)} cases exported as {len(causes)} root causes, run on {stacks}.",
        "Each folder holds `repro.py` (run it with `python -I repro.py`: it exits 1 when the "
        "problem shows, 0 when it does not), `ISSUE.md` (the tracker's template, ready to "
        "file) and `repro.json`.",
        "",
        "| tracker | issue | upstream | here | lines | variants |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Script size (lines of code, without blank lines and comments): median "
        f"{statistics.median(sizes):g}, largest {max(sizes)}.",
        "",
    ]
    path = out / "README.md"
    path.write_text("\n".join(text))
    return path
