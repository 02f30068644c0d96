"""Shared test helpers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python_path() -> str:
    """The repo root first, then whatever PYTHONPATH already holds (a machine whose packages
    were installed with `pip --target` finds them only through it)."""
    return os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])


def run_python(code: str, fixes: str = "off", timeout: int = 600) -> dict:
    """Run `code` in a fresh interpreter with `fixes` applied; it must print one JSON line
    last. For checks that need a fresh process (a search that must not see what this one
    imported or compiled); stock-vs-fixed switching within a process is `fixes.applied`."""
    prelude = f"import fixes; fixes.apply({fixes!r})\n"
    env = os.environ | {"PYTHONPATH": python_path(), "FUZZ_FIXES": fixes}
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_nightly(
    out: Path, *args: str, lane_mode: str = "", crash_dim: int = 7, timeout: int = 900
) -> tuple[subprocess.CompletedProcess, dict | None]:
    """`python -m fuzz nightly` on the fast test lane of tests/crash_ops.py (it stands in
    for Thunder: `--fixes off`, no Thunder import), one worker, cpu, quiet; `args` come
    after these defaults and override them. Returns the process and report.json (None
    when the campaign wrote none). `timeout` stays well above every `--budget` the tests
    give (400 at most), so a campaign slowed by its neighbours still ends by its budget
    and writes the report that says what it did (killed at its budget, a Ray campaign
    under a co-scheduled heavy test left nothing to read)."""
    env = {k: v for k, v in os.environ.items() if k != "FUZZ_FIXES"}
    env |= {
        "PYTHONPATH": python_path(),
        "FUZZ_TEST_LANE": lane_mode,
        "FUZZ_TEST_CRASH_DIM": str(crash_dim),
    }
    cmd = [
        sys.executable,
        "-m",
        "fuzz",
        "nightly",
        "--plugin",
        "tests.crash_ops",
        "--lanes",
        "thunder",
        "--devices",
        "cpu",
        "--workers",
        "1",
        "--fixes",
        "off",
        "--quiet",
        "--out",
        str(out),
        *args,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    report = out / "report.json"
    return proc, (json.loads(report.read_text()) if report.exists() else None)


def pytest_corpus(
    corpus: Path, plugin: str, fixes: str, *args: str, extra_path: str | None = None
) -> subprocess.CompletedProcess:
    """pytest over a corpus folder in a fresh process: the repository's conftest.py (which
    loads fuzz.pytest_plugin) as a plugin plus `plugin` (a test lane standing in for a real
    one), `--fixes fixes`, `$FUZZ_FIXES` unset. For tests of how corpus items are collected
    and judged."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [python_path(), extra_path])))
    env.pop("FUZZ_FIXES", None)
    env["FUZZ_TEST_LANE"] = ""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", plugin, str(corpus)]
        + ["-q", "-rA", "--fixes", fixes, "-p", "no:cacheprovider", *args]
        + ["-W", "ignore::pytest.PytestUnknownMarkWarning"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
