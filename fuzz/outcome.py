"""Run one case on one (lane, device) and classify what happened: the step that replay,
the corpus tests (fuzz.pytest_plugin) and the campaign's crash confirmation share.

Statuses, one per (case, lane, device):

    pass        no divergence
    divergence  a confirmed divergence the case does not expect
    expected    the lane's divergence kinds are exactly the case's EXPECT kinds for this
                lane, with every fix on (EXPECT documents upstream bugs our fixes do not
                fix; with some fixes off, everything that diverges is a `divergence`).
                Divergences of the other registered bugs a case names in ALSO (those
                cases' MATCHES recognise them) are kept in the outcome but set aside:
                they decide nothing here
    error       the case cannot be used (syntax error, missing program/calls, calls()
                raising, ...) or the harness failed on it: the message names the file
    skip        the case or the lane does not run here (with the reason)

A lane that stops part-way as unsupported keeps the divergences it saw before: such a
result is classified by those divergences (and the skip is noted), never a plain skip.
Every divergence carries `known_as`: the corpus cases whose registered bug it shows
(fuzz.corpus.CorpusIndex.known_as; empty when it is new).

`run_lane_isolated` runs the same step in a fresh process (`python -m fuzz.outcome`), so
a backend that kills or hangs its process gives a `<lane>.crash` divergence instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from fuzz.case import Case, CaseError, load_case, set_aside
from fuzz.case_runner import run_case
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.errors import error_text
from fuzz.facts import ANNOUNCE_ENV, announced
from fuzz.prepare import PluginError, all_fixes_on, lane_unavailable, prepare
from fuzz.procs import (
    RUNTIME_LOG_ENV,
    child_env,
    new_runtime_log,
    outcome_command,
    outcome_printed,
    run_isolated,
    runtime_log_tail,
    signal_name,
)
from fuzz.speedups import SpeedupsError

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


def expected_for(case: Case, lane: str) -> set[str]:
    return {k for k in case.expect if k.split(".", 1)[0] == lane}


def classify(case: Case, lane: str, kinds: set[str], fixes_on: bool) -> str:
    if not kinds:
        return "pass"
    expected = expected_for(case, lane)
    return "expected" if fixes_on and expected and kinds == expected else "divergence"


def _start(case: Case, lane: str, device: str) -> Outcome:
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


def _with_known(divergences: list[dict[str, Any]], case: Case, index: CorpusIndex | None):
    for d in divergences:
        d["known_as"] = [
            where.rsplit("/", 1)[-1].removesuffix(".py")
            for where in (index.known_as(d, case.source) if index is not None else ())
        ]
    return divergences


def _finish(out: Outcome, case: Case, lane: str, kinds: set[str], fixes_on: bool) -> Outcome:
    out.status = classify(case, lane, kinds, fixes_on)
    expected = expected_for(case, lane)
    if out.status == "pass" and expected and fixes_on:
        out.note = (
            f"EXPECT lists {sorted(expected)} but {lane} did not diverge: the upstream "
            f"bug may be fixed ({case.upstream or 'no UPSTREAM link'}); drop EXPECT"
        )
    elif out.status == "divergence" and expected and kinds == expected:
        out.note = f"kinds {sorted(kinds)} are EXPECT's (EXPECT is judged with every fix on)"
    elif out.status == "divergence" and expected:
        out.note = f"kinds {sorted(kinds)} differ from EXPECT {sorted(expected)}"
    if expected and fixes_on and (drift := case.version_drift()) is not None:
        # Registered on another stack (VERSIONS): say what it does here, not that it failed.
        seen = "reproduces" if out.status == "expected" else "not reproduced as registered"
        out.note = f"{seen} on {drift}" + (f"; {out.note}" if out.note else "")
    return out


def run_lane(
    case: Case,
    lane: str,
    device: str,
    seed: int = 0,
    fixes_on: bool | None = None,
    index: CorpusIndex | None = None,
) -> Outcome:
    """Run one (case, lane, device) and classify it (never raises for case problems)."""
    fixes_on = all_fixes_on() if fixes_on is None else fixes_on
    out = _start(case, lane, device)
    if out.status == "skip":
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
        out.status = "error"
        out.reason = (
            f"{case.where}: the harness raised {error_text(e, None)}\n"
            f"{traceback.format_exc(limit=-3)}"
        )
        return out
    finally:
        out.seconds = round(time.perf_counter() - start, 3)
    reports = [r for r in result.reports if r.lane == lane and r.device == device]
    if not reports:
        out.status, out.reason = "skip", f"{lane} did not run on {device}"
        return out
    report = reports[0]
    out.flaky = [d.to_json() for r in result.flaky for d in r.divergences]
    out.divergences = _with_known([d.to_json() for d in report.divergences], case, index)
    if report.skipped and not report.divergences:
        out.status, out.reason = "skip", report.skipped
        return out
    try:  # the divergences of other registered bugs the case says it shows (ALSO)
        aside = set_aside(case, out.divergences)
    except CaseError as e:
        out.status, out.reason = "error", str(e)
        return out
    kinds = {d["kind"] for d in out.divergences if not any(d is a for a in aside)}
    _finish(out, case, lane, kinds, fixes_on)
    if aside:
        seen = ", ".join(sorted({f"{d['kind']} at {d['stage']}" for d in aside}))
        out.note = (out.note + "; " if out.note else "") + (
            f"set aside as the bugs of {', '.join(case.also)} (ALSO): {seen}"
        )
    if report.skipped:
        out.note = (out.note + "; " if out.note else "") + (
            f"then the lane stopped: {report.skipped.splitlines()[0][:200]}"
        )
    return out


def run_lane_isolated(
    case: Case,
    lane: str,
    device: str,
    seed: int,
    switch: str,
    plugins: Sequence[str],
    timeout: float,
    corpus: Sequence[str] = (),
    index: CorpusIndex | None = None,
) -> Outcome:
    """`run_lane` in a fresh process: a backend that kills its process or hangs longer than
    `timeout` seconds gives a `<lane>.crash` divergence instead of taking the caller down.
    `corpus` folders are passed to the child (known_as); `index` classifies a crash here."""
    out = _start(case, lane, device)
    if out.status == "skip":
        return out
    cmd = outcome_command(case.path, lane, device, switch, plugins, seed=seed, corpus=corpus)
    printed: list[str] = []
    start = time.perf_counter()
    log = new_runtime_log()
    env = child_env() | {ANNOUNCE_ENV: "1", RUNTIME_LOG_ENV: log}
    rc, hung = run_isolated(cmd, env, timeout, printed)
    runtime_log = runtime_log_tail(log)
    if (result := outcome_printed("".join(printed))) is not None:
        return Outcome(**result)
    why = (
        f"no result after {timeout:g} s (hang); the process was killed"
        if hung
        else f"the process died ({signal_name(rc)})"
    )
    out.seconds = round(time.perf_counter() - start, 3)
    crash = {
        "kind": f"{lane}.crash",
        "stage": "process",
        "details": why,
        "device": device,
        "data": {"returncode": rc, "facts": announced("".join(printed))},
        "lane": lane,
    }
    if runtime_log and not hung:  # the runtime's last words (an abort's message)
        crash["data"]["error"] = f"{why} (runtime log: {runtime_log})"
    out.divergences = _with_known([crash], case, index)
    return _finish(out, case, lane, {f"{lane}.crash"}, all_fixes_on())


def main(argv: list[str] | None = None) -> int:
    """`python -m fuzz.outcome CASE LANE DEVICE [--fixes S] [--plugin M] [--seed N]
    [--corpus DIR]`: print RUNNING once the imports are done (the caller's time limit
    starts there), then `OUTCOME <json>`."""
    p = argparse.ArgumentParser(prog="python -m fuzz.outcome")
    p.add_argument("case")
    p.add_argument("lane")
    p.add_argument("device")
    p.add_argument("--fixes", default=None)
    p.add_argument("--speedups", default=None)  # on|off|LANE,... (fuzz.speedups)
    p.add_argument("--plugin", action="append", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--corpus", action="append", default=[])
    args = p.parse_args(argv)
    try:
        prepare(args.fixes, args.plugin, args.speedups)
        case = load_case(args.case)
    except (PluginError, CaseError, SpeedupsError) as e:  # an error result, not a crash
        print(
            "OUTCOME "
            + json.dumps(
                Outcome(args.case, args.case, args.lane, args.device, "error", str(e)).to_json()
            ),
            flush=True,
        )
        return 0
    index = CorpusIndex.of(DirectoryCorpus(c) for c in args.corpus) if args.corpus else None
    print("RUNNING", flush=True)
    outcome = run_lane(case, args.lane, args.device, seed=args.seed, index=index)
    print("OUTCOME " + json.dumps(outcome.to_json(), default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
