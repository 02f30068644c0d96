"""Replay case files: `python -m fuzz replay PATH... [options]`.

Each case runs on every (lane, device) it allows, in this process, through the engine
(so a divergence is confirmed by a second run, as everywhere). One result per
(case, lane, device):

    pass        no divergence
    divergence  a confirmed divergence the case does not expect
    expected    the lane's divergence kinds are exactly the case's EXPECT kinds for this
                lane, with every fix on (EXPECT documents upstream bugs our fixes do not
                fix; with some fixes off, everything that diverges is a `divergence`)
    error       the case cannot be used (syntax error, missing program/calls, calls()
                raising, ...) or the harness failed on it: the message names the file
    skip        the case or the lane does not run here (with the reason)

A case whose EXPECT names kinds of a lane that then passes is `pass` with a note (the
upstream bug may be fixed; pytest's strict xfail turns that into a failure).

Exit status: 0 when every result is pass/expected/skip, 1 on any unexpected divergence,
2 on usage or case-file errors (the other cases still run; 2 wins over 1).

With `--isolate`, every (case, lane, device) runs in a fresh process (slower: each one
imports the stack), so a case that crashes or hangs a backend (e.g. a `<lane>.crash`
case filed by the nightly job) is reported as that divergence instead of ending replay.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

STATUSES = ("pass", "divergence", "expected", "error", "skip")


@dataclasses.dataclass
class Outcome:
    case: str
    path: str
    lane: str | None
    device: str | None
    status: str
    reason: str = ""
    divergences: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    flaky: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    expect: list[str] = dataclasses.field(default_factory=list)
    upstream: str | None = None
    note: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def expected_for(case, lane: str) -> set[str]:
    return {k for k in case.expect if k.split(".", 1)[0] == lane}


def classify(case, lane: str, kinds: set[str], fixes_on: bool) -> str:
    if not kinds:
        return "pass"
    expected = expected_for(case, lane)
    return "expected" if fixes_on and expected and kinds == expected else "divergence"


def run_lane(case, lane: str, device: str, seed: int = 0, fixes_on: bool | None = None) -> Outcome:
    """Run one (case, lane, device) and classify it (never raises for case problems)."""
    from fuzz.case import CaseError
    from fuzz.engine import run_case
    from fuzz.prepare import all_fixes_on, lane_unavailable

    if fixes_on is None:
        fixes_on = all_fixes_on()
    out = Outcome(
        case.name,
        case.where,
        lane,
        device,
        "pass",
        expect=list(case.expect),
        upstream=case.upstream,
    )
    if not case.runs_on(lane, device):
        out.status, out.reason = "skip", f"the case does not run on {lane}/{device}"
        return out
    if (why := lane_unavailable(lane, device)) is not None:
        out.status, out.reason = "skip", why
        return out
    start = time.perf_counter()
    try:
        result = run_case(case, [lane], [device], seed=seed, confirm=True)
    except CaseError as e:
        out.status, out.reason = "error", str(e)
        return out
    except Exception as e:
        tb = traceback.format_exc(limit=-3)
        out.status = "error"
        out.reason = f"{case.where}: the harness raised {type(e).__name__}: {e}\n{tb}"
        return out
    finally:
        out.seconds = round(time.perf_counter() - start, 3)
    reports = [r for r in result.reports if r.lane == lane and r.device == device]
    if not reports:
        out.status, out.reason = "skip", f"{lane} did not run on {device}"
        return out
    report = reports[0]
    out.flaky = [d.to_json() for r in result.flaky for d in r.divergences]
    if report.skipped:
        out.status, out.reason = "skip", report.skipped
        return out
    out.divergences = [d.to_json() for d in report.divergences]
    out.status = classify(case, lane, report.kinds, fixes_on)
    expected = expected_for(case, lane)
    if out.status == "pass" and expected and fixes_on:
        out.note = (
            f"EXPECT lists {sorted(expected)} but {lane} did not diverge: the upstream "
            f"bug may be fixed ({case.upstream or 'no UPSTREAM link'}); drop EXPECT"
        )
    elif out.status == "divergence" and expected:
        out.note = f"kinds {sorted(report.kinds)} differ from EXPECT {sorted(expected)}"
    return out


def replay_paths(
    paths: Sequence[str | Path],
    lanes: Sequence[str],
    devices: Sequence[str],
    seed: int = 0,
    progress=None,
    isolate: dict | None = None,
) -> list[Outcome]:
    """Replay every case; with `isolate` (switch, plugins, timeout), each (case, lane,
    device) runs in its own process."""
    from fuzz.case import CaseError, load_case
    from fuzz.corpus import expand_paths
    from fuzz.prepare import all_fixes_on

    fixes_on = all_fixes_on()
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
                if isolate:
                    outcomes.append(run_lane_isolated(case, lane, device, seed, **isolate))
                else:
                    outcomes.append(run_lane(case, lane, device, seed, fixes_on))
                if progress:
                    progress(outcomes[-1])
    return outcomes


def run_lane_isolated(
    case, lane: str, device: str, seed: int, switch: str, plugins: Sequence[str], timeout: float
) -> Outcome:
    """`run_lane` in a fresh process (`--isolate`): a backend that kills its process or
    hangs longer than `timeout` seconds gives a `<lane>.crash` divergence instead of
    taking replay down."""
    import sys as _sys

    from fuzz.campaign.nightly import child_env, run_one, signal_name

    out = Outcome(
        case.name,
        case.where,
        lane,
        device,
        "pass",
        expect=list(case.expect),
        upstream=case.upstream,
    )
    if not case.runs_on(lane, device):
        out.status, out.reason = "skip", f"the case does not run on {lane}/{device}"
        return out
    cmd = [
        _sys.executable,
        "-m",
        "fuzz.campaign.worker",
        "run-one",
        str(case.path),
        lane,
        device,
        "--fixes",
        switch,
        "--seed",
        str(seed),
    ]
    for p in plugins:
        cmd += ["--plugin", p]
    printed: list[str] = []
    start = time.perf_counter()
    rc, hung = run_one(cmd, child_env(), timeout, printed)
    text = "".join(printed)
    for line in text.splitlines():
        if line.startswith("OUTCOME "):
            data = json.loads(line[len("OUTCOME ") :])
            return Outcome(**data)
    why = (
        f"no result after {timeout:g} s (hang); the process was killed"
        if hung
        else f"the process died ({signal_name(rc)})"
    )
    out.seconds = round(time.perf_counter() - start, 3)
    out.divergences = [
        {
            "kind": f"{lane}.crash",
            "stage": "process",
            "details": why,
            "device": device,
            "data": {"returncode": rc},
            "lane": lane,
        }
    ]
    out.status = classify(case, lane, {f"{lane}.crash"}, _all_on())
    return out


def _all_on() -> bool:
    from fuzz.prepare import all_fixes_on

    return all_fixes_on()


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
        lines.append(f"    {d['kind']} at {d['stage']}: {details}")
    if o.note:
        lines.append(f"    note: {o.note}")
    return "\n".join(lines)


def default_devices() -> tuple[str, ...]:
    from fuzz.engine import available_devices

    return available_devices()


def main(args) -> int:
    """Run `python -m fuzz replay` with parsed `args` (see fuzz.__main__)."""
    import fixes
    from fuzz.divergence import KINDS, lane_of
    from fuzz.prepare import fixes_switch, prepare

    switch = fixes_switch(args.fixes)
    lanes = args.lanes
    known_lanes = sorted({lane_of(k) for k in KINDS})  # checked before importing any stack
    unknown = [ln for ln in lanes if ln not in known_lanes]
    bad_devices = [d for d in args.devices or () if d not in ("cpu", "cuda")]
    if unknown or bad_devices:
        print(
            f"error: unknown lane(s) {unknown} / device(s) {bad_devices}; lanes: "
            f"{known_lanes}, devices: cpu, cuda",
            file=sys.stderr,
        )
        return 2
    try:
        fixes.parse_switch(switch)
        active = prepare(switch, args.plugin or ())
    except fixes.FixError as e:
        print(f"error: --fixes {switch}: {e}", file=sys.stderr)
        return 2
    versions = fixes.package_versions()
    to_json = args.json is not None
    stream = sys.stderr if args.json == "-" else sys.stdout
    print(
        f"fixes: {switch} -> {', '.join(f'{k} ({v})' for k, v in active.items()) or 'none'}",
        file=stream,
    )
    devices = args.devices or default_devices()

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
        args.paths, lanes, devices, args.seed, progress=progress, isolate=isolate
    )
    code = exit_status(outcomes)
    counts = Counter(o.status for o in outcomes)
    print(
        "summary: "
        + ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s])
        + f" -> exit {code}",
        file=stream,
    )
    if to_json:
        doc = {
            "command": "replay",
            "fixes": {
                "switch": switch,
                "active": active,
                "all_on": set(fixes.all_fixes()) <= set(active),
            },
            "versions": versions,
            "lanes": list(lanes),
            "devices": list(devices),
            "seed": args.seed,
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
