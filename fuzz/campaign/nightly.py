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
import time
from pathlib import Path

import fixes
from fuzz import speedups
from fuzz.backends.registry import unknown_names
from fuzz.campaign.database import DatabaseError, check_database
from fuzz.campaign.local import LocalEngine
from fuzz.campaign.report import build_report, write_reports
from fuzz.campaign.supervisor import CampaignSettings, Supervisor, auto_workers
from fuzz.campaign.triage import Triage, local_rerun, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus, ReadOnlyCorpus
from fuzz.prepare import PluginError, check_plugins, fixes_switch


class EngineError(RuntimeError):
    """The chosen engine cannot run here; the message says why."""


def database_of(args) -> str | None:
    db = args.database
    return None if (db or "").lower() == "none" else (db or str(Path(args.out) / "hypothesis-db"))


# Ray names a node by its "remotely reachable" address; a Ray instance that only lives on
# this machine (no --ray-address) should use loopback, and this switch, read when ray is
# imported, makes it do so.
LOOPBACK_RAY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def connect_ray(args) -> dict[str, float]:
    """Join (or start) the Ray cluster; its resources. Needs the `cluster` extra."""
    if args.ray_address is None:
        for key, value in LOOPBACK_RAY.items():
            os.environ.setdefault(key, value)
    try:
        from fuzz.extra import ray_engine  # optional: imports ray
    except ImportError as e:
        raise EngineError(f"--engine ray needs ray (pip install '.[cluster]'): {e}") from e
    try:
        return ray_engine.connect(args.ray_address)
    except Exception as e:
        raise EngineError(f"--engine ray: cannot reach the cluster {args.ray_address}: {e}") from e


def settings_from(args, resources: dict[str, float] | None = None) -> CampaignSettings:
    """The campaign settings; with a Ray cluster, `--workers auto` is its CPU count."""
    out = Path(args.out)
    seed = args.hypothesis_seed
    workers = args.workers
    if workers == "auto":
        workers = int(resources.get("CPU", 1)) if resources is not None else auto_workers()
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
        database=database_of(args),
        corpus=tuple(args.corpus or ["corpus"]),
        into=args.into,
        engine=args.engine,
        quiet=args.quiet,
    )


def run_engine(sup: Supervisor, resources: dict[str, float] | None):
    """Run the workers on the chosen engine; returns how that engine re-runs a crash."""
    if sup.settings.engine == "ray":
        from fuzz.extra.ray_engine import RayEngine  # optional: imports ray (connect_ray did)

        engine = RayEngine(sup, resources or {})
        engine.run()
        return engine.confirm
    LocalEngine(sup).run()
    return local_rerun(sup)


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
        resources = connect_ray(args) if args.engine == "ray" else None
    except (DatabaseError, EngineError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    settings = settings_from(args, resources)
    settings.out.mkdir(parents=True, exist_ok=True)
    sup = Supervisor(settings)
    sup.engine_startup_seconds = time.perf_counter() - started  # Ray's own start, when used
    sup.event(
        f"campaign seed {settings.seed}, {len(sup.slots)} worker(s) ({settings.engine}), "
        f"lanes {','.join(settings.lanes)}, devices {','.join(settings.devices)}, "
        f"fixes {settings.fixes}, speedups {settings.speedups}, budget {settings.budget:g} s"
        + (f", max {settings.max_examples} programs" if settings.max_examples else "")
    )
    try:
        rerun = run_engine(sup, resources)
        into = DirectoryCorpus(settings.into or settings.out / "cases")
        corpora = [ReadOnlyCorpus(DirectoryCorpus(p)) for p in settings.corpus]
        Triage(sup, CorpusIndex.of([*corpora, into]), into, rerun).run(renderer(sup))
    finally:
        if resources is not None:
            from fuzz.extra.ray_engine import disconnect

            disconnect()
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
