"""The nightly fuzz job: `python -m fuzz nightly [options]` (options: fuzz/__main__.py).

    settings  -> Supervisor (fuzz.campaign.supervisor: the campaign's state and decisions)
              -> the engine the command layer built runs the workers
                 (fuzz.campaign.engines: local processes by default, or Ray actors)
              -> Triage (fuzz.campaign.triage: confirm crashes, known vs new, file cases)
              -> report.json and report.md (fuzz.campaign.report)

Workers explore with Hypothesis (fuzz.campaign.worker); seeds derive from
`--hypothesis-seed`. Known bugs (corpus cases with MATCHES, FOUND or EXPECT) are counted
while exploring and never shrunk; each new bucket is shrunk once.

Exit status: 2 on harness errors (a lane that cannot be imported, a worker or the harness
raising, bad options, an unreachable database), else 1 when something new diverged, else
3 when a lane has a blind spot (fuzz.campaign.report), else 0.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

import fixes
from fuzz import speedups
from fuzz.backends.registry import unknown_names
from fuzz.campaign.database import DatabaseError, check_database
from fuzz.campaign.engines import Engine, EngineError
from fuzz.campaign.report import build_report, write_reports
from fuzz.campaign.supervisor import CampaignSettings, Supervisor, auto_workers
from fuzz.campaign.triage import Triage, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus, ReadOnlyCorpus
from fuzz.prepare import PluginError, check_plugins, fixes_switch


def database_of(args) -> str | None:
    db = args.database
    return None if (db or "").lower() == "none" else (db or str(Path(args.out) / "hypothesis-db"))


def settings_from(args, engine: str = "local", workers_auto: int | None = None) -> CampaignSettings:
    """The campaign settings; `--workers auto` is what the engine's `open` said (one per
    core here, a Ray cluster's CPU count)."""
    out = Path(args.out)
    seed = args.hypothesis_seed
    workers = args.workers
    if workers == "auto":
        workers = workers_auto if workers_auto is not None else auto_workers()
    return CampaignSettings(
        budget=args.budget,
        lanes=tuple(args.lanes),
        devices=tuple(args.devices),
        fixes=fixes_switch(args.fixes),
        speedups=speedups.switch(getattr(args, "speedups", None)),
        workers=max(1, workers),
        seed=seed if seed is not None else int.from_bytes(os.urandom(4), "big"),
        out=out,
        plugins=tuple(args.plugin or ()),
        max_examples=args.max_examples,
        example_timeout=args.example_timeout,
        shrink_budget=args.shrink_budget,
        max_ops=args.max_ops,
        max_calls=args.max_calls,
        op_focus=getattr(args, "op_focus", "on") == "on",
        database=database_of(args),
        corpus=tuple(args.corpus or ["corpus"]),
        into=args.into,
        engine=engine,
        quiet=args.quiet,
    )


def main(args, engine: Engine) -> int:
    """The nightly command on `engine` (built by the command layer from `--engine`)."""
    switch = fixes_switch(args.fixes)
    try:
        fixes.parse_switch(switch)
    except fixes.FixError as e:
        print(f"error: --fixes {switch}: {e}", file=sys.stderr)
        return 2
    if (problem := unknown_names(args.lanes, args.devices)) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        speedups.apply(getattr(args, "speedups", None))  # inherited by every child process
    except speedups.SpeedupsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:  # a missing one here; one that raises on import fails every worker's setup
        check_plugins(args.plugin or ())
    except PluginError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.max_examples is not None and args.max_examples < 1:
        print("error: --max-examples must be >= 1", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        check_database(database_of(args))
        workers_auto = engine.open()
    except (DatabaseError, EngineError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        sup = campaign(args, engine, workers_auto, started)
    finally:
        engine.close()
    return summarize(args, sup)


def campaign(args, engine: Engine, workers_auto: int, started: float) -> Supervisor:
    """Explore on the engine, then triage what it found."""
    settings = settings_from(args, engine.name, workers_auto)
    settings.out.mkdir(parents=True, exist_ok=True)
    sup = Supervisor(settings)
    sup.engine_startup_seconds = time.perf_counter() - started  # e.g. joining Ray
    sup.event(
        f"campaign seed {settings.seed}, {len(sup.slots)} worker(s) ({settings.engine}), "
        f"lanes {','.join(settings.lanes)}, devices {','.join(settings.devices)}, "
        f"fixes {settings.fixes}, speedups {settings.speedups}, budget {settings.budget:g} s"
        + (f", max {settings.max_examples} programs" if settings.max_examples else "")
    )
    engine.run(sup)
    into = DirectoryCorpus(settings.into or settings.out / "cases")
    corpora = [ReadOnlyCorpus(DirectoryCorpus(p)) for p in settings.corpus]
    rerun = functools.partial(engine.confirm, sup)
    Triage(sup, CorpusIndex.of([*corpora, into]), into, rerun).run(renderer(sup))
    return sup


def summarize(args, sup: Supervisor) -> int:
    """Write report.json and report.md, print the summary; the exit status."""
    settings = sup.settings
    doc = build_report(sup)
    write_reports(settings.out, doc)
    if not args.quiet:
        status = [f["status"] for f in doc["findings"]]
        merged = status.count("merged")
        known = sum(s in ("known", "duplicate") for s in status)
        print(
            f"{doc['programs']['explored']} programs in {doc['wall_s']:.0f} s "
            f"({doc['programs']['per_second']:.2f}/s); {len(doc['distinct_bugs'])} distinct "
            f"new bug(s) ({status.count('new') + merged} findings, {merged} merged), "
            f"{status.count('drifted')} drifted, {known} known finding(s); "
            f"report: {settings.out / 'report.md'}; exit {doc['exit']}"
        )
        for path in doc["new_cases"]:
            print(f"  new case: {path}")
        for bucket in doc["drifted"]:
            print(f"  drifted into a registered bug while shrinking: {bucket}")
        for spot in doc["blind_spots"]:
            print(f"  blind spot: {spot['lane']}: {spot['what']} {spot['value']}")
        for err in doc["errors"][:5]:
            print(f"  harness error: {err.splitlines()[0][:300]}")
    return doc["exit"]
