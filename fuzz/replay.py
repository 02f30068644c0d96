"""Replay case files: `python -m fuzz replay PATH... [options]`.

Each case runs on every (lane, device) it allows, in this process, through the case runner (so
a divergence is confirmed by a second run, as everywhere), and is classified by
fuzz.outcome: pass, divergence, expected, error or skip (see there). A case whose EXPECT
names kinds of a lane that then passes is `pass` with a note (the upstream bug may be
fixed; pytest's strict xfail turns that into a failure). Every divergence in the JSON has
`known_as`: the corpus cases (`--corpus`, default corpus/) whose registered bug it shows.

Exit status: 0 when every result is pass/expected/skip, 1 on any unexpected divergence,
2 on usage or case-file errors (the other cases still run; 2 wins over 1). A `--plugin`
that cannot be imported is a usage error: exit 2 before any case runs.

With `--isolate`, every (case, lane, device) runs in a fresh process (slower: each one
imports the stack), so a case that crashes or hangs a backend (e.g. a `<lane>.crash`
case filed by the nightly job) is reported as that divergence instead of ending replay.
A case that says `ISOLATE = True` (it kills its process) always runs that way.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import fixes
from fuzz import speedups
from fuzz.backends.registry import unknown_names
from fuzz.case import CaseError, load_case
from fuzz.case_runner import available_devices
from fuzz.corpus import CorpusIndex, DirectoryCorpus, expand_paths
from fuzz.defaults import EXAMPLE_TIMEOUT_S
from fuzz.outcome import STATUSES, Outcome, run_lane, run_lane_isolated
from fuzz.prepare import (
    PluginError,
    all_fixes_on,
    check_plugins,
    fixes_switch,
    install_compat,
    install_speedups,
    prepare,
)

DEFAULT_CORPUS = "corpus"


def replay_paths(
    paths: Sequence[str | Path],
    lanes: Sequence[str],
    devices: Sequence[str],
    seed: int = 0,
    progress: Callable[[Outcome], None] | None = None,
    isolate: dict | None = None,
    corpus: Sequence[str] = (),
) -> list[Outcome]:
    """Replay every case; with `isolate` (switch, plugins, timeout), each (case, lane,
    device) runs in its own process, and so does every case that says ISOLATE (with this
    process's fixes switch when `isolate` is None). `corpus` folders say which divergences
    are known."""
    fixes_on = all_fixes_on()
    isolation = isolate or {"switch": fixes_switch(), "plugins": (), "timeout": EXAMPLE_TIMEOUT_S}
    index = CorpusIndex.of(DirectoryCorpus(c) for c in corpus)
    outcomes: list[Outcome] = []
    for path in expand_paths(paths):
        try:
            if not path.exists():
                raise CaseError(f"{path}: no such file")
            case = load_case(path)
        except CaseError as e:
            outcomes.append(Outcome(path.stem, str(path), None, None, "error", str(e)))
            if progress:
                progress(outcomes[-1])
            continue
        for device in devices:
            for lane in lanes:
                if isolate or case.isolate:
                    outcome = run_lane_isolated(
                        case, lane, device, seed, **isolation, corpus=corpus, index=index
                    )
                else:
                    outcome = run_lane(case, lane, device, seed, fixes_on, index=index)
                outcomes.append(outcome)
                if progress:
                    progress(outcome)
    return outcomes


def exit_status(outcomes: Sequence[Outcome]) -> int:
    statuses = {o.status for o in outcomes}
    if "error" in statuses:
        return 2
    if "divergence" in statuses:
        return 1
    return 0


def format_outcome(o: Outcome) -> str:
    where = f"{o.lane}/{o.device}" if o.lane else "-"
    line = f"{o.status.upper():<10} {o.path}  {where}"
    if o.status == "skip" and o.reason:
        line += f"  ({o.reason.strip().splitlines()[0][:200]})"
    lines = [line]
    if o.status == "error":
        lines += ["    " + ln for ln in o.reason.strip().splitlines()]
    for d in o.divergences:
        details = d["details"] if len(d["details"]) < 300 else d["details"][:300] + "..."
        known = f"  [known: {', '.join(d['known_as'])}]" if d.get("known_as") else ""
        lines.append(f"    {d['kind']} at {d['stage']}: {details}{known}")
    if o.note:
        lines.append(f"    note: {o.note}")
    return "\n".join(lines)


def main(args) -> int:
    """Run `python -m fuzz replay` with parsed `args` (see fuzz.__main__)."""
    switch = fixes_switch(args.fixes)
    if (problem := unknown_names(args.lanes, args.devices or ())) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        fixes.parse_switch(switch)
        check_plugins(args.plugin or ())  # before the fixes import the stacks
        active = prepare(switch, args.plugin or (), getattr(args, "speedups", None))
    except speedups.SpeedupsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except fixes.FixError as e:
        print(f"error: --fixes {switch}: {e}", file=sys.stderr)
        return 2
    except PluginError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    corpus = (
        args.corpus
        if args.corpus is not None
        else ([DEFAULT_CORPUS] if Path(DEFAULT_CORPUS).is_dir() else [])
    )
    stream = sys.stderr if args.json == "-" else sys.stdout
    summary = ", ".join(f"{k} ({v})" for k, v in active.items()) or "none"
    print(f"fixes: {switch} -> {summary}", file=stream)
    devices = args.devices or available_devices()
    compat_state = install_compat(args.lanes)
    speedups_state = install_speedups(args.lanes)
    print(f"speedups: {speedups.describe(speedups_state)}", file=stream)
    print(f"compat shims: {speedups.describe_compat(compat_state)}", file=stream)

    def progress(o: Outcome) -> None:
        # Lanes a case excludes itself (LANES/DEVICES) are left out of the text (not the JSON).
        if not (o.status == "skip" and o.reason.startswith("the case does not run")):
            print(format_outcome(o), file=stream, flush=True)

    isolate = (
        {"switch": switch, "plugins": list(args.plugin or ()), "timeout": args.timeout}
        if args.isolate
        else None
    )
    outcomes = replay_paths(
        args.paths,
        args.lanes,
        devices,
        args.seed,
        progress=progress,
        isolate=isolate,
        corpus=corpus,
    )
    code = exit_status(outcomes)
    counts = Counter(o.status for o in outcomes)
    done = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s])
    print(f"summary: {done} -> exit {code}", file=stream)
    if args.json is not None:
        doc = {
            "command": "replay",
            "fixes": {
                "switch": switch,
                "active": active,
                "all_on": set(fixes.all_fixes()) <= set(active),
            },
            "speedups": speedups_state,
            "compat": compat_state,  # fuzz.speedups.compat_state()
            "versions": fixes.package_versions(),
            "lanes": list(args.lanes),
            "devices": list(devices),
            "seed": args.seed,
            "corpus": list(corpus),
            "results": [o.to_json() for o in outcomes],
            "summary": {s: counts[s] for s in STATUSES},
            "exit": code,
        }
        text = json.dumps(doc, indent=2, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return code
