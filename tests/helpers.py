"""Shared test helpers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, fixes: str = "off", timeout: int = 600) -> dict:
    """Run `code` in a fresh interpreter with `fixes` applied; it must print one JSON line
    last. For checks that need a fresh process (a search that must not see what this one
    imported or compiled); stock-vs-fixed switching within a process is `fixes.applied`."""
    prelude = f"import fixes; fixes.apply({fixes!r})\n"
    env = os.environ | {"PYTHONPATH": str(ROOT), "FUZZ_FIXES": fixes}
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
