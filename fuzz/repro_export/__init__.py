"""Repro export: `python -m fuzz repro CASE.py [CASE ...] --out DIR` writes, per case,
DIR/CASE/repro.py (the shortest script that shows the bug, on the stock stack, in the
owner's idiom), DIR/CASE/ISSUE.md (the owning tracker's template) and DIR/CASE/repro.json
(what the exporter found: the stage, the tracker, the outcome, the size); and, for the
whole set, DIR/README.md, the triage index (one row per root cause).

repro.py imports torch, the stack it runs (executorch or thunder) and the standard
library only. It runs from any folder with `python -I repro.py`, prints eager's result
against the stack's and exits 1 when the problem shows, 0 when it does not, 2 only
where this machine cannot run it at all (a CUDA program without a GPU).

How a script is found: fuzz/repro_export/ladder.py. What it runs: exir.py, thunder.py.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

from fuzz.case import CaseError, case_metadata, load_case
from fuzz.repro_export.source import UnknownCustomOp

OUTCOMES = ("reproduces", "ok", "unsupported", "unavailable", "error", "timeout", "not run")


@dataclasses.dataclass
class Exported:
    case: str
    lane: str
    kinds: tuple[str, ...]
    stage: str  # where the problem shows (or the last stage checked, where it does not)
    tracker: str
    checks: tuple[str, ...]
    outcome: str  # OUTCOMES
    lines: int  # lines of code (fuzz.repro_export.script.lines_of_code)
    tries: int  # scripts run to find it
    folder: Path

    def to_json(self) -> dict:
        return dataclasses.asdict(self) | {"folder": str(self.folder)}


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def _device(case) -> tuple[str, str]:
    """(the device the script runs on, the device to analyse on here)."""
    devices = case.devices or ("cpu",)
    if "cpu" in devices:
        return "cpu", "cpu"
    device = devices[0]
    return device, device if device == "cpu" or _cuda_available() else "cpu"


# The lanes a repro script can be written for (a ThunderFX script carries the workaround
# of fixes/compat_thunderfx_lazy_submodules.py: fuzz/repro_export/thunder.py).
SCRIPTED_LANES = ("thunder", "thunderfx", "thunderprims", "exir", "xnnpack")
THUNDER_LANES = ("thunder", "thunderfx", "thunderprims")


def _lanes(case) -> tuple[str, ...]:
    lanes = tuple(case.lanes or ("thunder", "exir"))
    scripted = tuple(lane for lane in lanes if lane in SCRIPTED_LANES)
    if not scripted:
        raise ValueError(
            f"{case.where}: no repro script can be written for lane(s) {', '.join(lanes)} "
            f"(scripted lanes: {', '.join(SCRIPTED_LANES)})"
        )
    return scripted


def export_case(path: str | Path, out: str | Path, run: bool = True) -> Exported:
    """Write OUT/CASE/{repro.py, ISSUE.md, repro.json}; run the candidate scripts unless
    `run` is False (then the first candidate is written, not checked)."""
    import fixes
    from fuzz import speedups
    from fuzz.repro_export import exir, issue, ladder, subject, thunder

    case = load_case(path)
    meta = case_metadata(case.source)
    kinds = case_kinds(case, meta)
    folder = Path(out) / case.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    device, here = _device(case)
    runs = run and (device == "cpu" or _cuda_available())
    speedups.apply("off")  # the stock stack, as the script's reader has it
    found = None
    with fixes.applied("off"):
        for lane in _lanes(case):
            lane_kinds = tuple(k for k in kinds if k.startswith(lane + "."))
            if kinds and not lane_kinds:
                continue
            s = subject.analyse(case, lane, here, lane_kinds)
            s.device = device
            runner = ladder.Runner(folder, lane, execute=runs)
            search = ladder.search_thunder if lane in THUNDER_LANES else ladder.search_exir
            candidate = search(s, runner)
            candidate.subject = s
            if found is None or (
                candidate.outcome == "reproduces" and found.outcome != "reproduces"
            ):
                found = candidate
            if found.outcome == "reproduces":
                break
    assert found is not None, f"{case.where}: no lane to export for"
    lane = found.subject.lane
    if device != "cpu" and not runs:
        found.run = None
    (folder / "repro.py").write_text(found.text)
    what = thunder.WHAT if lane in THUNDER_LANES else exir.what(lane)
    (folder / "ISSUE.md").write_text(issue.write_issue(case, meta, lane, found, what))
    outcome = found.outcome if runs else ("unavailable" if run else "not run")
    done = Exported(
        case.name,
        lane,
        kinds,
        found.stage,
        found.tracker,
        found.checks,
        outcome,
        found.lines,
        found.tries,
        folder,
    )
    (folder / "repro.json").write_text(json.dumps(done.to_json(), indent=2) + "\n")
    return done


def case_kinds(case, meta: dict) -> tuple[str, ...]:
    """The kinds the case shows: EXPECT (with every fix on) and FOUND (what it was filed
    for); none for a case that names neither, which then gets every check."""
    found = tuple(dict.fromkeys(f.split("@")[0] for f in meta.get("FOUND") or ()))
    return tuple(dict.fromkeys(case.expect + found))


def cases_in(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out += sorted(p.glob("*.py")) if p.is_dir() else [p]
    return out


def _export_one(path: Path, out: str, run: bool) -> Exported | str:
    """export_case, or the error that stopped it (as text: it crosses processes)."""
    import warnings

    warnings.simplefilter("ignore")
    try:
        return export_case(path, out, run=run)
    except (CaseError, UnknownCustomOp, ValueError, SyntaxError) as e:
        return f"{type(e).__name__}: {e}"


def main(args) -> int:
    """Export every case (`--jobs` at once, each in a process of its own), then write the
    index; 2 when a case cannot be read or exported, else 0."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from fuzz.repro_export.index import write_index

    paths = cases_in(args.paths)
    jobs = max(1, getattr(args, "jobs", 1))
    run = not args.no_run
    if jobs == 1:
        results = (_export_one(p, args.out, run) for p in paths)
    else:  # spawned, not forked: torch and the stacks do not survive a fork safely
        pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn"))
        results = pool.map(_export_one, paths, [args.out] * len(paths), [run] * len(paths))
    status, done = 0, []
    for path, result in zip(paths, results):
        if isinstance(result, str):
            print(f"ERROR {path}: {result}", file=sys.stderr)
            status = 2
            continue
        done.append(result)
        print(
            f"{result.folder}/repro.py  {result.tracker}  {result.stage}  "
            f"{result.outcome}  {result.lines} lines",
            flush=True,
        )
    if done:
        write_index(Path(args.out), paths, done)
    return status
