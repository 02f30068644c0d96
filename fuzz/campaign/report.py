"""The nightly report: `report.json` (everything, for tools) and `report.md` (a one-minute
read: outcome, throughput and skip rates per lane, blind spots, distinct bugs new vs
known, cache figures, coverage per lane, and where the time went).

`build_report` makes the document from the supervisor's data after triage; its fields are
a public contract (dashboards read them): add, never rename or drop.

Exit status (the document's "exit"): 2 on harness errors, else 1 when something new
diverged (or a finding drifted to a registered bug while shrinking: fuzz.campaign.triage),
else 3 when a lane has a blind spot (below), else 0.

Blind spots (report.json "blind_spots": lane, what, value, limit, why; report.md shows
each, and the figures behind them per lane even under their limits): a lane/device

  * "skip rate": skipped more than SKIP_RATE_LIMIT (25 %) of the programs it was given (a
    version bump that makes every program unsupported would otherwise give a campaign
    that exits 0 having checked nothing);
  * "no cache hit": a Thunder lane that ran MIN_PROGRAMS_FOR_HITS (5) programs or more
    and saw no cache hit never tested the cache;
  * "no program ran": asked for (--lanes x --devices) but ran no program (unavailable,
    or everything skipped or erred);
  * "no call checked": ran programs but checked no call of any (counters["calls-checked"]
    is 0: every EXIR call outside the exported contract, every Thunder call raising);
  * "programs with no call checked": more than UNCHECKED_SHARE_LIMIT (25 %) of the
    programs it ran had no call checked; the skip rate's limit, since such a program is
    as unchecked as a skipped one;
  * "oracle errors": more than ORACLE_ERROR_SHARE_LIMIT (2 %) of the programs it was given
    had a check of the harness raise (counters["oracle-error"], counted and swallowed by
    fuzz/backends/exir/checks.py `guard`). Each one is a harness bug that silently
    drops one check on one program; a rare one (shown in report.md with its count) is
    worth fixing but leaves the check working elsewhere, while 1 program in 50 means a
    check is off for a whole class of programs (the Thunder lane does not swallow its
    oracles' exceptions: they are harness errors, exit 2);
  * "outside-contract rate": more than OUTSIDE_CONTRACT_LIMIT (50 %) of the EXIR calls
    were left out as outside the exported contract (call-outside-contract / all calls
    judged): past half, the lane mostly checks the example call it exported for, and the
    call sequences' varying sizes and numbers go unchecked;
  * "unmapped share": more than UNMAPPED_SHARE_LIMIT (25 %) of the planned tensors of the
    calls checked could not be mapped to a reference value (`unmapped_share`), so the
    under-allocation check saw less than three in four planned buffers;
  * "fuzz:: ops not run": more than NO_FUZZ_KERNELS_LIMIT (10 %) of the EXIR programs it
    ran got static checks only because the harness's own runtime kernels for its custom
    ops could not be built here (counters["runtime-static-no-fuzz-kernels"];
    fuzz/backends/exir/kernels): only their edge program's result was compared, never
    the planned program's on the runtime. The programs the runtime cannot run for want of
    a kernel of the stack's own (sort, unique, cumprod, ...) are counted (report.md's
    "static checks only", with the calls whose edge program was compared instead:
    `edge_result_calls`) but are the stack's gap, not a blind spot.
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

from fuzz.backends.registry import lane_devices
from fuzz.campaign.findings import distinct_bugs
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.supervisor import Supervisor
from fuzz.case import case_metadata
from fuzz.divergence import THUNDER_JIT_LANES

SKIP_RATE_LIMIT = 0.25
MIN_PROGRAMS_FOR_HITS = 5
UNCHECKED_SHARE_LIMIT = 0.25
ORACLE_ERROR_SHARE_LIMIT = 0.02
OUTSIDE_CONTRACT_LIMIT = 0.5
UNMAPPED_SHARE_LIMIT = 0.25
NO_FUZZ_KERNELS_LIMIT = 0.1
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


def registered_by_class(known_bugs: dict[str, int]) -> dict[str, int]:
    """Programs per CLASS of the registered cases that recognised them (fuzz.case.CLASSES;
    "unclassified" for a case without one): bugs, limitations and plan-quality apart."""
    counts: dict[str, int] = {}
    for case, programs in known_bugs.items():
        try:
            cls = case_metadata(Path(case).read_text()).get("CLASS")
        except OSError:
            cls = None
        key = cls if isinstance(cls, str) else "unclassified"
        counts[key] = counts.get(key, 0) + programs
    return dict(sorted(counts.items()))


def _spot(lane: str, what: str, value: float, limit: float, why: str) -> dict[str, Any]:
    return {"lane": lane, "what": what, "value": value, "limit": limit, "why": why}


def check_rates(key: str, st: dict[str, Any]) -> dict[str, Any]:
    """What a lane/device checked, as the blind spots judge it: calls checked (None when
    the lane does not count them), the ran programs with no call checked (count, share
    of those it ran), the oracle errors and the programs with one (count, share of those
    it was given), the outside-contract rate (EXIR) and the unmapped share (None when
    there is nothing to share)."""
    c, ran = st["counters"], st["ran"]
    counts = key.startswith("exir/") or "calls-checked" in c
    checked, outside = c.get("calls-checked", 0), c.get("call-outside-contract", 0)
    unchecked, oracle = st.get("unchecked", 0), st.get("oracle_error_programs", 0)
    return {
        "calls_checked": checked if counts else None,
        "unchecked_programs": unchecked,
        "unchecked_share": round(unchecked / ran, 4) if ran else None,
        "oracle_errors": c.get("oracle-error", 0),
        "oracle_error_programs": oracle,
        "oracle_error_share": round(oracle / st["programs"], 4) if st["programs"] else None,
        "outside_contract_rate": round(outside / (outside + checked), 4)
        if outside + checked and (key.startswith("exir/") or outside)
        else None,
        "unmapped_share": _unmapped(c),
        # EXIR programs the runtime did not run (no kernel): static checks only; those for
        # want of our own fuzz:: kernels
        "runtime_static_programs": c.get("runtime-static-only", 0),
        "runtime_static_share": round(c.get("runtime-static-only", 0) / ran, 4)
        if ran and key.startswith("exir/")
        else None,
        "no_fuzz_kernels_programs": c.get("runtime-static-no-fuzz-kernels", 0),
        # calls of those programs whose edge program's result was compared instead
        # (exir.edge-result, fuzz/backends/exir/edge_run.py)
        "edge_result_calls": c.get("calls-edge-result", 0),
        # why calls were outside the contract, by kind (fuzz.backends.exir.contract)
        "outside_contract_by": {
            k.split(":", 1)[1]: v
            for k, v in sorted(c.items())
            if k.startswith("call-outside-contract:")
        },
        # mismatches the float64 call set aside (fuzz.oracles.results, fuzz.case_runner)
        "within_eager_error": c.get("within-eager-error", 0),
        "ill_conditioned": c.get("ill-conditioned", 0),
        # programs (and calls) where eager raised: each a generator rule bug, since a
        # generated program is valid by construction (fuzz.case_runner)
        "eager_raised_programs": c.get("eager-raised", 0),
        "eager_raised_calls": c.get("eager-raised-calls", 0),
    }


def blind_spots(
    stats: dict[str, Any], asked: Iterable[str] = (), unavailable: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Lanes that checked too little: see the module docstring. `asked`: the
    "lane/device" keys the campaign was asked for; `unavailable`: why some could not run."""
    out = []
    for key in asked:
        st = stats["lanes"].get(key)
        if st is None or not st["ran"]:
            given = st["programs"] if st else 0
            why = (unavailable or {}).get(key) or f"{given} program(s) given, none ran"
            out.append(_spot(key, "no program ran", 0, 1, why))
    for key, st in stats["lanes"].items():
        skipped = sum(st["skipped"].values())
        if st["programs"] and skipped / st["programs"] > SKIP_RATE_LIMIT:
            why = ", ".join(f"{r}: {n}" for r, n in st["skipped"].items())
            out.append(
                _spot(key, "skip rate", round(skipped / st["programs"], 3), SKIP_RATE_LIMIT, why)
            )
        ran, c = st["ran"], st["counters"]
        if (
            key.split("/")[0] in THUNDER_JIT_LANES
            and ran >= MIN_PROGRAMS_FOR_HITS
            and not c.get("hits")
        ):
            out.append(_spot(key, "no cache hit", 0, 1, f"{ran} programs ran, none hit the cache"))
        r = check_rates(key, st)
        if r["oracle_error_programs"] and r["oracle_error_share"] > ORACLE_ERROR_SHARE_LIMIT:
            why = (
                f"{r['oracle_errors']} oracle error(s) in {r['oracle_error_programs']} of "
                f"{st['programs']} programs (details['oracle_errors'] of each lane report)"
            )
            share = r["oracle_error_share"]
            out.append(_spot(key, "oracle errors", share, ORACLE_ERROR_SHARE_LIMIT, why))
        if not ran:
            continue
        if r["calls_checked"] == 0:
            outside = c.get("call-outside-contract", 0)
            why = f"{ran} programs ran, no call checked ({outside} outside the contract)"
            out.append(_spot(key, "no call checked", 0, 1, why))
        elif r["unchecked_share"] > UNCHECKED_SHARE_LIMIT:
            why = f"{r['unchecked_programs']} of {ran} programs ran with no call checked"
            share = r["unchecked_share"]
            out.append(
                _spot(key, "programs with no call checked", share, UNCHECKED_SHARE_LIMIT, why)
            )
        rate = r["outside_contract_rate"]
        if rate is not None and rate > OUTSIDE_CONTRACT_LIMIT:
            why = (
                f"{c.get('call-outside-contract', 0)} calls outside the exported contract, "
                f"{c.get('calls-checked', 0)} checked"
            )
            out.append(_spot(key, "outside-contract rate", rate, OUTSIDE_CONTRACT_LIMIT, why))
        share = r["unmapped_share"]
        if share is not None and share > UNMAPPED_SHARE_LIMIT:
            why = f"{c.get('tensors-unmapped', 0)} planned tensors unmapped (not checked)"
            out.append(_spot(key, "unmapped share", share, UNMAPPED_SHARE_LIMIT, why))
        unrun = r["no_fuzz_kernels_programs"]
        if unrun and unrun / ran > NO_FUZZ_KERNELS_LIMIT:
            why = (
                f"{unrun} of {ran} programs got static checks only: the harness's fuzz:: "
                "kernels could not be built here (the lane report's `runtime` detail says why)"
            )
            share = round(unrun / ran, 4)
            out.append(_spot(key, "fuzz:: ops not run", share, NO_FUZZ_KERNELS_LIMIT, why))
    return out


def _unmapped(c: dict[str, int]) -> float | None:
    """Unmapped planned tensors / all planned tensors the calls checked met (checked,
    unmapped, mapped but not reached), or None when there were none."""
    unmapped = c.get("tensors-unmapped", 0)
    total = unmapped + sum(c.get(f"tensors-{k}", 0) for k in ("checked", "not-reached", "mapped"))
    return round(unmapped / total, 4) if total else None


def unmapped_share(stats: dict[str, Any]) -> dict[str, float]:
    """Per lane: the share of planned tensors the EXIR lane could not map to eager values
    (so did not check), when the lane counts them."""
    shares = {key: _unmapped(st["counters"]) for key, st in stats["lanes"].items()}
    return {key: share for key, share in shares.items() if share is not None}


def checked_figures(stats: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """report.json "checked": per lane/device, `check_rates` (what report.md shows)."""
    return {key: check_rates(key, st) for key, st in stats["lanes"].items()}


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
    drifted = [f for f in sup.findings.values() if f.status == "drifted"]
    ours = [f for f in sup.findings.values() if f.status == "harness-bug"]  # fuzz.campaign.stock
    asked = [f"{lane}/{device}" for lane, device in lane_devices(s.lanes, s.devices)]
    spots = blind_spots(stats, asked, sup.unavailable)
    code = (
        EXIT_ERRORS
        if sup.errors
        else EXIT_NEW
        if new or drifted or ours
        else EXIT_BLIND
        if spots
        else EXIT_CLEAN
    )
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
            "merged_into": f.merged_into,
            "absorbed": f.absorbed,
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
        # fuzz/speedups.py: what a worker installed, or only the switch without a worker
        "speedups": (hello.speedups if hello and hello.speedups else {"switch": s.speedups}),
        "compat": hello.compat if hello else None,  # fuzz.speedups.compat_state()
        "plugins": list(s.plugins),
        "versions": hello.versions if hello else {},
        "harness": sup.harness,
        "max_examples": s.max_examples,
        "op_focus": s.op_focus,
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
        "known_by_class": registered_by_class(dict(known_bugs)),
        "registered_upstream": registered_upstream(
            [*known_bugs, *(c for f in sup.findings.values() for c in f.known_as)]
        ),
        "new_cases": [f.path for f in new],
        "distinct_bugs": distinct_bugs(list(sup.findings.values()), programs_per_bucket),
        "drifted": [f.bucket for f in drifted],
        "harness_bugs": [f.path or f.bucket for f in ours],
        "unconfirmed_crashes": list(sup.unconfirmed),
        "blind_spots": spots,
        "coverage": sup.stats.coverage(),
        "unmapped_share": unmapped_share(stats),
        "checked": checked_figures(stats),
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
