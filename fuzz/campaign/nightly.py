"""The nightly fuzz job: `python -m fuzz nightly [options]` (options: fuzz/__main__.py).

    settings  -> Supervisor (fuzz.campaign.supervisor: the campaign's state and decisions)
              -> an engine runs the workers (fuzz.campaign.local, the default: processes on
                 this machine; fuzz.extra.ray_engine: `--engine ray`, actors on a cluster)
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

import os
import sys
from pathlib import Path

import fixes
from fuzz.backends.registry import unknown_names
from fuzz.campaign.database import DatabaseError, check_database
from fuzz.campaign.local import LocalEngine
from fuzz.campaign.report import build_report, write_reports
from fuzz.campaign.supervisor import CampaignSettings, Supervisor, auto_workers
from fuzz.campaign.triage import Triage, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus, ReadOnlyCorpus
from fuzz.prepare import fixes_switch


def settings_from(args) -> CampaignSettings:
    out = Path(args.out)
    db = args.database
    database = None if (db or "").lower() == "none" else (db or str(out / "hypothesis-db"))
    seed = args.hypothesis_seed
    return CampaignSettings(
        budget=args.budget,
        lanes=tuple(args.lanes),
        devices=tuple(args.devices),
        fixes=fixes_switch(args.fixes),
        workers=auto_workers() if args.workers == "auto" else args.workers,
        seed=seed if seed is not None else int.from_bytes(os.urandom(4), "big"),
        out=out,
        plugins=tuple(args.plugin or ()),
        max_examples=args.max_examples,
        example_timeout=args.example_timeout,
        shrink_budget=args.shrink_budget,
        max_ops=args.max_ops,
        max_calls=args.max_calls,
        database=database,
        corpus=tuple(args.corpus or ["corpus"]),
        into=args.into,
        engine=getattr(args, "engine", "local"),
        quiet=args.quiet,
    )


def run_engine(sup: Supervisor, args) -> None:
    if sup.settings.engine == "ray":
        from fuzz.extra.ray_engine import RayEngine  # optional: needs the `cluster` extra

        RayEngine(sup, address=args.ray_address).run()
    else:
        LocalEngine(sup).run()


def main(args) -> int:
    switch = fixes_switch(args.fixes)
    try:
        fixes.parse_switch(switch)
    except fixes.FixError as e:
        print(f"error: --fixes {switch}: {e}", file=sys.stderr)
        return 2
    if (problem := unknown_names(args.lanes, args.devices)) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.max_examples is not None and args.max_examples < 1:
        print("error: --max-examples must be >= 1", file=sys.stderr)
        return 2
    settings = settings_from(args)
    try:
        check_database(settings.database)
    except DatabaseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    settings.out.mkdir(parents=True, exist_ok=True)
    sup = Supervisor(settings)
    sup.event(
        f"campaign seed {settings.seed}, {len(sup.slots)} worker(s) ({settings.engine}), "
        f"lanes {','.join(settings.lanes)}, devices {','.join(settings.devices)}, "
        f"fixes {settings.fixes}, budget {settings.budget:g} s"
        + (f", max {settings.max_examples} programs" if settings.max_examples else "")
    )
    run_engine(sup, args)
    into = DirectoryCorpus(settings.into or settings.out / "cases")
    corpora = [ReadOnlyCorpus(DirectoryCorpus(p)) for p in settings.corpus]
    Triage(sup, CorpusIndex.of([*corpora, into]), into).run(renderer(sup))
    doc = build_report(sup)
    write_reports(settings.out, doc)
    if not args.quiet:
        new = sum(1 for f in doc["findings"] if f["status"] == "new")
        known = sum(1 for f in doc["findings"] if f["status"] in ("known", "duplicate"))
        print(
            f"{doc['programs']['explored']} programs in {doc['wall_s']:.0f} s "
            f"({doc['programs']['per_second']:.2f}/s); {new} new, {known} known finding(s); "
            f"report: {settings.out / 'report.md'}; exit {doc['exit']}"
        )
        for path in doc["new_cases"]:
            print(f"  new case: {path}")
        for spot in doc["blind_spots"]:
            print(f"  blind spot: {spot['lane']}: {spot['what']} {spot['value']}")
        for err in doc["errors"][:5]:
            print(f"  harness error: {err.splitlines()[0][:300]}")
    return doc["exit"]
