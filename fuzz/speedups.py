"""The speedups switch: our pure-overhead patches of Thunder and torch.export, on or off.

The lanes run their stacks patched by two sets of speedups that change what the stacks
cost, not what they compute (fuzz/backends/thunder_speedups.py: Thunder's interpreter;
fuzz/backends/exir/speedups.py: torch.export's decomposition bookkeeping). They are ours,
not the stacks', so a bug they introduce would be a harness bug filed as an upstream one.
Hence:

* the switch: `--speedups on|off` (nightly, replay, fuzz.outcome), else $FUZZ_SPEEDUPS,
  else "on". It is process-wide and lives in the environment (`apply` writes it back),
  so every child process (workers, isolated lane runs, confirmations) inherits it; the
  lanes install their speedups only while it is on (`enabled`), and `apply("off")`
  uninstalls any that are installed;
* the record: `state()` (the switch, each installed speedup, each skipped one and why)
  goes into the worker hello, report.json, replay's JSON and every case file;
* the stock re-confirmation: a new finding of a night run with speedups on is re-run in
  a fresh process with them off before it is filed (fuzz/campaign/triage.py).

Torch-free: the speedup modules are read only when a lane has imported them.
"""

from __future__ import annotations

import os
import sys
from typing import Any

ENV_VAR = "FUZZ_SPEEDUPS"
VALUES = ("on", "off")

# The modules holding speedups; each has installed_names(), `skipped` and uninstall().
MODULES = {
    "thunder": "fuzz.backends.thunder_speedups",
    "exir": "fuzz.backends.exir.speedups",
}


class SpeedupsError(ValueError):
    """A speedups switch other than on/off; str() names where it came from."""


def switch(value: str | None = None) -> str:
    """The speedups switch: an explicit value, else $FUZZ_SPEEDUPS, else "on"."""
    given = value if value is not None else os.environ.get(ENV_VAR)
    chosen = (given or "on").strip().lower()
    if chosen not in VALUES:
        where = "--speedups" if value is not None else f"${ENV_VAR}"
        raise SpeedupsError(f"{where} must be 'on' or 'off', got {given!r}")
    return chosen


def enabled() -> bool:
    """Whether the lanes may install their speedups in this process."""
    return switch() == "on"


def apply(value: str | None = None) -> str:
    """Set the switch for this process and its children; "off" uninstalls what is
    installed. Returns the switch."""
    chosen = switch(value)
    os.environ[ENV_VAR] = chosen
    if chosen == "off":
        for name in MODULES.values():
            module = sys.modules.get(name)
            if module is not None:
                module.uninstall()
    return chosen


def state() -> dict[str, Any]:
    """{"switch", "installed": ["thunder:dis", ...], "skipped": {"exir:override": why}}."""
    installed: list[str] = []
    skipped: dict[str, str] = {}
    for lane, name in MODULES.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        installed += [f"{lane}:{n}" for n in module.installed_names()]
        skipped |= {f"{lane}:{n}": why for n, why in module.skipped.items()}
    return {"switch": switch(), "installed": sorted(installed), "skipped": skipped}


def describe(record: dict[str, Any] | None) -> str:
    """One line for reports and case files: "on (installed: exir:collect, ...)"."""
    if not record:
        return "not recorded"
    text = str(record.get("switch", "?"))
    if record.get("installed"):
        text += f" (installed: {', '.join(record['installed'])})"
    elif text == "on":
        text += " (none installed in this process)"
    if record.get("skipped"):
        text += "; skipped: " + "; ".join(f"{k}: {v}" for k, v in record["skipped"].items())
    return text
