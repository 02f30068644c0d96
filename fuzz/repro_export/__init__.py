"""Repro export: `python -m fuzz repro CASE.py [CASE ...] --out DIR` writes, per case,
DIR/CASE/repro.py (a standalone script on the stock stack) and DIR/CASE/ISSUE.md.

repro.py imports only torch, the stack under test (executorch or thunder) and the
standard library. It runs the case's program the way the lane does, without the
harness's fixes or speedups, checks the divergence the case shows, and prints
`DIVERGES: ...` (exit 1), `OK: ...` (exit 0), or `UNSUPPORTED: ...` (exit 2) for kinds that
cannot be checked without the harness (script.NOT_CHECKABLE says which, and why).
The templates are in this package: common, exir_template, thunder_template,
custom_ops_template; script.py composes them, issue.py writes ISSUE.md.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import subprocess
import sys
from pathlib import Path

from fuzz.case import CaseError, case_metadata, load_case

PACKAGES = ("torch", "executorch", "lightning-thunder")


def versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


@dataclasses.dataclass
class Exported:
    case: str
    lane: str
    kinds: tuple[str, ...]
    check: str | None  # None: the script says UNSUPPORTED
    folder: Path


def _lane_inputs(case) -> tuple[dict, int]:
    """(dynamic dims by input name, the export example's index), as the EXIR lane picks
    them (fuzz/backends/exir/inputs.py) from the seeded calls."""
    from fuzz.backends.exir.inputs import derive_dims, pick_example
    from fuzz.tensors import materialize

    calls = materialize(case, 0, "cpu")
    dims = derive_dims(case, calls)
    names = case.input_names()
    return {names[p]: d for p, d in dims.items()}, pick_example(calls, dims)


def export_case(path: str | Path, out: str | Path, run: bool = True) -> Exported:
    from fuzz.repro_export import issue, script

    case = load_case(path)
    meta = case_metadata(case.source)
    lanes = case.lanes or ("thunder", "exir")
    lane = lanes[0]
    dims, example = _lane_inputs(case) if lane == "exir" else ({}, 0)
    p = script.plan(case, meta, lane, dims, example)
    pins = versions()
    text = script.render(case, meta, p, pins)
    folder = Path(out) / case.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "repro.py").write_text(text)
    actual = run_script(folder / "repro.py")[1] if run else None
    expected = (
        "The program behaves as it does eagerly: "
        + (text.split("EXPECTED = ", 1)[1].splitlines()[0].strip("'\"") or "no divergence")
        + "."
    )
    (folder / "ISSUE.md").write_text(issue.write_issue(case, lane, text, pins, expected, actual))
    return Exported(case.name, lane, p.kinds, p.check, folder)


def run_script(path: Path, timeout: float = 600) -> tuple[int, str]:
    """(exit status, output) of `python -I repro.py`, run from the script's folder: the
    tail of its stderr, then the tail of its stdout."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return -1, f"(timed out after {timeout:.0f} s)"
    # stderr's tail first, then stdout's: the verdict line (DIVERGES/OK/UNSUPPORTED) is on
    # stdout and must not be cut off by a long torch log on stderr.
    err = [ln for ln in done.stderr.splitlines() if ln.strip()][-20:]
    out = [ln for ln in done.stdout.splitlines() if ln.strip()][-20:]
    return done.returncode, "\n".join(err + out)


def cases_in(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out += sorted(p.glob("*.py")) if p.is_dir() else [p]
    return out


def main(args) -> int:
    """Export every case; 2 when a case cannot be read or exported, else 0."""
    status = 0
    for path in cases_in(args.paths):
        try:
            done = export_case(path, args.out, run=not args.no_run)
        except (CaseError, ValueError, SyntaxError) as e:
            print(f"ERROR {path}: {e}", file=sys.stderr)
            status = 2
            continue
        what = done.check or "UNSUPPORTED"
        print(f"{done.folder}/repro.py  {done.lane}  {','.join(done.kinds)}  check: {what}")
    return status
