"""report.md: the nightly report as a one-minute read (fuzz.campaign.report builds the
document it renders)."""

from __future__ import annotations

from typing import Any

from fuzz.speedups import describe as describe_speedups
from fuzz.speedups import describe_compat


def _pct(n: float, d: float) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


OUTCOME = {
    0: "nothing new diverged",
    1: "NEW divergences found",
    2: "harness errors",
    3: "a lane checked too little (blind spot)",
}


def speedups_line(record: dict[str, Any] | None) -> str:
    """The speedups a night ran with (fuzz/speedups.py `describe`, switch in backticks)."""
    if not record:
        return "not recorded"
    text = describe_speedups(record)
    switch = str(record.get("switch", "?"))
    return f"`{switch}`" + text[len(switch) :]


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
        + (f" --speedups {doc['speedups']['switch']}" if doc.get("speedups") else "")
        + "".join(f" --plugin {p}" for p in doc.get("plugins") or ())
        + (f" --max-examples {doc['max_examples']}" if doc.get("max_examples") else "")
        + (" --op-focus on" if doc.get("op_focus") else "")
        + "`)",
        f"- fixes: `{fixes['switch']}` -> {active}",
        f"- speedups: {speedups_line(doc.get('speedups'))}",
        f"- compat shims: {describe_compat(doc.get('compat'))}",
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

    if doc.get("blind_spots"):
        lines += ["## Blind spots", ""]
        for b in doc["blind_spots"]:
            lines.append(
                f"- **{b['lane']}**: {b['what']} {b['value']} (limit {b['limit']}): {b['why']}"
            )
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
    lines += _checked(doc)
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
    lines += _bugs(doc)
    lines += _coverage(doc)
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
    shrink = doc.get("shrinking") or {}
    if shrink:
        lines.append("")
        lines.append(
            f"Shrinking: {shrink['seconds']:.1f} s ({100 * shrink['share_of_worker_time']:.0f}% "
            f"of worker time), of which {shrink['on_known_s']:.1f} s on findings that turned "
            "out known."
        )
    if doc.get("nodes"):
        lines.append("")
        lines.append(
            "Nodes (explored programs per lane): "
            + "; ".join(
                f"{host}: " + ", ".join(f"{k} {v}" for k, v in lanes.items())
                for host, lanes in doc["nodes"].items()
            )
            + "."
        )
    lines.append("")
    return "\n".join(lines)


def _bugs(doc: dict[str, Any]) -> list[str]:
    """Distinct bugs (one per bucket that was shrunk), new first, then registered bugs."""
    by_bucket = {f["bucket"]: f for f in doc["findings"]}
    lines = []
    if "distinct_bugs" in doc:
        merged = sum(b["findings"] for b in doc["distinct_bugs"])
        lines += [
            f"**{len(doc['distinct_bugs'])} distinct new bug(s) ({merged} findings)**; "
            "findings of one root cause are merged into one case file (fuzz/campaign/triage.py).",
            "",
        ]
    for status, title in (
        ("new", "New bugs (case files written)"),
        ("merged", "Merged (one root cause with a case filed above)"),
        ("drifted", "Drifted (new when explored, a registered bug after shrinking; exit 1)"),
        (
            "harness-bug",
            "Harness bugs (do not reproduce with our speedups off: not filed upstream; exit 1)",
        ),
        ("known", "Known bugs found again (a registered corpus case matched after shrinking)"),
        ("duplicate", "Duplicates (shrank to a program filed above)"),
        ("flaky", "Did not reproduce"),
    ):
        group = [b for b in doc.get("bugs", []) if b["status"] == status]
        if not group:
            continue
        lines.append(f"**{title}:**")
        for b in group:
            f = by_bucket[b["bucket"]]
            # The divergence the bucket is for, not the program's first (an unsound
            # hit's program may show a wrong result at an earlier call).
            d = next(
                (x for x in f["divergences"] if x.get("bucket") == b["bucket"]),
                f["divergences"][0],
            )
            where = f"`{f['path']}` " if f["path"] else ""
            details = " ".join(str(d["details"]).split())[:160]
            # A new finding can carry known divergences beside its new one: say which.
            matched = "other divergences match" if status == "new" else "matches"
            extra = f"; {matched} {', '.join(f['known_as'])}" if f["known_as"] else ""
            conf = f"; {f['confirmation']}" if f.get("confirmation") else ""
            if f.get("stock"):
                conf += f"; {f['stock']}"
            if f.get("merged_into"):
                conf += f"; merged into `{f['merged_into']}` ({f.get('merge_reason') or '?'})"
            if f.get("absorbed"):
                conf += f"; absorbed {', '.join(f'`{x}`' for x in f['absorbed'])}"
            # A bucket first seen in a program met while shrinking another one has no
            # explored program of its own.
            shown = (
                f"shown by {b['programs']} program(s)"
                if b["programs"]
                else "seen only while shrinking another finding"
            )
            lines.append(
                f"- {where}`{b['bucket']}`: {details} ({shown}; shrunk: {f['shrunk']}{extra}{conf})"
            )
            if status == "drifted":  # what was found, before the shrink slid away from it
                lines += ["", "  First program:", "", "  ```python"]
                lines += [f"  {ln}" for ln in (f.get("first_source") or "").splitlines()]
                lines += ["  ```", ""]
        lines.append("")
    if doc.get("unconfirmed_crashes"):
        lines += [
            f"**{len(doc['unconfirmed_crashes'])} crash(es) not re-run** (past the limit of "
            "crash confirmations; classified without confirmation): "
            + ", ".join(f"`{b}`" for b in doc["unconfirmed_crashes"])
            + ".",
            "",
        ]
    if doc.get("known_bugs"):
        lines.append(
            "**Registered bugs recognised while exploring (programs; not shrunk):** "
            + ", ".join(f"`{k}` {v}" for k, v in doc["known_bugs"].items())
            + "."
        )
        lines.append("")
    if by_class := doc.get("known_by_class"):  # fuzz.case.CLASSES: what each case registers
        lines.append(
            "**Registered cases by class (programs):** "
            + ", ".join(f"{k} {v}" for k, v in by_class.items())
            + "."
        )
        lines.append("")
    if upstream := doc.get("registered_upstream"):
        shared = {link: cases for link, cases in upstream.items() if len(cases) > 1}
        cases = sum(len(c) for c in upstream.values())
        text = f"**Distinct registered bugs seen:** {len(upstream)} (in {cases} corpus case(s))"
        if shared:
            text += "; cases that register one upstream bug: " + "; ".join(
                f"{link}: " + ", ".join(f"`{c}`" for c in group) for link, group in shared.items()
            )
        lines += [text + ".", ""]
    return lines


def _by_kind(by: dict[str, int] | None) -> str:
    """ " (number 12, dim-range 30)": why calls were outside the contract."""
    if not by:
        return ""
    return (
        " ("
        + ", ".join(f"{kind} {n}" for kind, n in sorted(by.items(), key=lambda kv: -kv[1]))
        + ")"
    )


def _static(r: dict[str, Any]) -> str:
    """ "; static checks only (no runtime kernel) 3 (2.1%), their edge program's result
    compared at 7 calls" for an EXIR lane, else ""."""
    if r.get("runtime_static_share") is None:
        return ""
    share = 100 * r["runtime_static_share"]
    return (
        f"; static checks only (no runtime kernel) {r['runtime_static_programs']} ({share:.1f}%),"
        f" their edge program's result compared at {r.get('edge_result_calls', 0)} calls"
    )


def _checked(doc: dict[str, Any]) -> list[str]:
    """Per lane, what the blind spots judge, under their limits too (report.json
    "checked"; fuzz.campaign.report.check_rates)."""
    lines = []
    for key, r in (doc.get("checked") or {}).items():

        def share(x):
            return "-" if x is None else f"{100 * x:.1f}%"

        calls = "not counted" if r["calls_checked"] is None else r["calls_checked"]
        lines.append(
            f"\nChecked on {key}: calls checked {calls}; programs with no call checked "
            f"{r['unchecked_programs']} ({share(r['unchecked_share'])}); oracle errors "
            f"{r['oracle_errors']} in {r['oracle_error_programs']} program(s) "
            f"({share(r['oracle_error_share'])}); outside-contract rate "
            f"{share(r['outside_contract_rate'])}{_by_kind(r.get('outside_contract_by'))}; "
            f"unmapped share {share(r['unmapped_share'])}"
            f"{_static(r)}"
            f"; mismatches set aside by the float64 call: {r.get('within_eager_error', 0)} "
            f"within eager's error, {r.get('ill_conditioned', 0)} decided by rounding; "
            f"programs where eager raised {r.get('eager_raised_programs', 0)}."
        )
        if r.get("eager_raised_programs"):
            lines.append(
                f"\n**A generator rule bug:** eager raised at {r['eager_raised_calls']} "
                f"call(s) of {r['eager_raised_programs']} generated program(s) on {key}. "
                "A generated program is valid by construction (fuzz/ops: each op's shape "
                "rule), and a call eager and the lane both reject checks nothing."
            )
    return lines


def _never_drawn(c: dict[str, Any]) -> str:
    """The lane's catalogue ops no drawn program used (absent from older reports)."""
    if "never_drawn" not in c:
        return "not recorded"
    names = c["never_drawn"]
    return f"{len(names)}: {', '.join(names)}" if names else "none"


def _coverage(doc: dict[str, Any]) -> list[str]:
    """Per lane and device, over the programs it checked (a call of which it checked):
    families, inputs, decisions, the ops it could not run and those never drawn."""
    lines = ["## Coverage", ""]
    coverage = doc.get("coverage") or {}
    if not coverage:
        return lines + ["No lane ran a program.", ""]
    for key, c in coverage.items():
        n = max(c["programs"], 1)
        ran = f" of {c['ran']} ran" if "ran" in c else " ran"
        lines.append(f"**{key}** ({c['programs']} programs checked{ran}):")
        lines.append("")
        rows = [
            [
                "op families",
                ", ".join(f"{k} {_pct(v, n)}" for k, v in c["families"].items()) or "-",
            ],
            ["inputs", ", ".join(f"{k} {_pct(v, n)}" for k, v in c["inputs"].items()) or "-"],
            ["decisions", ", ".join(f"{k} {v}" for k, v in c["decisions"].items()) or "-"],
            ["unsupported ops", ", ".join(f"{k} {v}" for k, v in c["unsupported"].items()) or "-"],
            ["data-dependent, custom or cond", _pct(c.get("dynamic", 0), n)],
            ["ops checked", f"{len(c.get('ops', {}))} distinct"],
            ["ops never drawn", _never_drawn(c)],
        ]
        lines += _table(["what", "share of programs (decisions: count)"], rows)
        lines.append("")
    return lines
