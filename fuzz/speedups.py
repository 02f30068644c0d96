"""The speedups switch: our pure-overhead patches of Thunder and torch.export, on or off.

The lanes run their stacks patched by two sets of speedups that change what the stacks
cost, not what they compute (fuzz/backends/thunder/speedups.py: Thunder's interpreter;
fuzz/backends/exir/speedups.py: torch.export's decomposition bookkeeping). They are ours,
not the stacks', so a bug they introduce would be a harness bug filed as an upstream one.
Hence:

* the switch: `--speedups on|off|LANE,...` (nightly, replay, fuzz.outcome), else
  $FUZZ_SPEEDUPS, else fuzz.defaults.SPEEDUPS_SWITCH ("on"); parsed by the fixes'
  parser (fixes._patching.parse_switch), the lanes' names as the names. It is
  process-wide and lives in the environment (`apply` writes it back), so every child
  process (workers, isolated lane runs, confirmations) inherits it; a lane installs its
  speedups only while the switch names it (`enabled(lane)`), and `apply` uninstalls the
  installed ones of lanes it does not name;
* the record: `state()` (the switch, each installed speedup, each skipped one and why)
  goes into the worker hello, report.json, replay's JSON and every case file, and next
  to it `compat_state()`: every other patch set installed in the process but the fixes
  (recorded by `fixes.active()`): the compat shims (fixes/compat_thunder_named_tensor.py,
  not switchable: a lane's stack does not import without its shim), the harness's own
  override of Hypothesis' literal pool (fuzz/strategies.py), fault plugins
  (tests/faults/) and a diagnostic repair while one is installed;
* the stock re-confirmation: a new finding of a night run with speedups on is re-run in
  a fresh process with them off before it is filed (fuzz/campaign/triage.py).

Speedups and shims are `fixes._patching.PatchSet`s, the fixes' patching mechanism
(gated on the upstream source they reproduce, undone exactly); this module reads them
from its registry (`patch_sets`), so it is torch-free: a set is there only once a lane
has imported its module.
"""

from __future__ import annotations

import os
from typing import Any

from fixes._patching import SwitchError, parse_switch, patch_sets
from fuzz.defaults import SPEEDUPS_SWITCH
from fuzz.errors import FuzzError

ENV_VAR = "FUZZ_SPEEDUPS"
VALUES = ("on", "off")  # or lane names (MODULES), comma-separated
# The kinds of patch sets compat_state() records (fixes._patching's docstring).
RECORDED_KINDS = ("compat", "harness", "fault", "repair")

# The modules holding each lane's speedups (a PatchSet named after the lane, kind
# "speedup") and its compat shims (kind "compat"), imported by fuzz.prepare.
MODULES = {
    "thunder": "fuzz.backends.thunder.speedups",
    "exir": "fuzz.backends.exir.speedups",
}
# Lanes that run another lane's stack, and so its speedups (the ThunderFX lane's Thunder;
# the XNNPACK lane's `to_edge_transform_and_lower` runs `run_decompositions` as `to_edge` does).
SPEEDUPS_OF = {"thunderfx": "thunder", "thunderprims": "thunder", "xnnpack": "exir"}
COMPAT = {
    "thunder": ("fixes.compat_thunder_named_tensor",),
    "thunderfx": ("fixes.compat_thunder_named_tensor", "fixes.compat_thunderfx_lazy_submodules"),
    "thunderprims": ("fixes.compat_thunder_named_tensor",),
}


class SpeedupsError(FuzzError, ValueError):
    """A speedups switch other than on/off; str() names where it came from."""


def switch(value: str | None = None) -> str:
    """The speedups switch, normalised ("on", "off" or "exir,thunder"): an explicit
    value, else $FUZZ_SPEEDUPS, else fuzz.defaults.SPEEDUPS_SWITCH."""
    given = value if value is not None else os.environ.get(ENV_VAR)
    try:
        lanes = parse_switch(given or SPEEDUPS_SWITCH, tuple(MODULES), "lane")
    except SwitchError as e:
        where = "--speedups" if value is not None else f"${ENV_VAR}"
        raise SpeedupsError(
            f"{where} must be 'on', 'off' or lane names ({', '.join(MODULES)}), got {given!r}: {e}"
        ) from e
    if not lanes:
        return "off"
    return "on" if set(lanes) == set(MODULES) else ",".join(sorted(set(lanes)))


def lanes() -> list[str]:
    """The lanes whose speedups the switch turns on in this process."""
    return parse_switch(switch(), tuple(MODULES), "lane")


def enabled(lane: str | None = None) -> bool:
    """Whether lane `lane` (any lane, if None) may install its speedups in this process."""
    chosen = lanes()
    return bool(chosen) if lane is None else lane in chosen


def apply(value: str | None = None) -> str:
    """Set the switch for this process and its children; the installed speedups of lanes
    it does not name are uninstalled. Returns the switch."""
    chosen = switch(value)
    os.environ[ENV_VAR] = chosen
    for patch_set in patch_sets("speedup"):  # each named after its lane
        if not enabled(patch_set.name):
            patch_set.uninstall()
    return chosen


def state() -> dict[str, Any]:
    """{"switch", "installed": ["thunder:dis", ...], "skipped": {"exir:override": why}}."""
    installed: list[str] = []
    skipped: dict[str, str] = {}
    for patch_set in patch_sets("speedup"):
        lane = patch_set.name
        installed += [f"{lane}:{n}" for n in patch_set.installed_names()]
        skipped |= {f"{lane}:{n}": why for n, why in patch_set.skipped.items()}
    return {"switch": switch(), "installed": sorted(installed), "skipped": skipped}


def compat_state() -> dict[str, list[str]]:
    """{"thunder-named-tensor": ["Tensor.align_as", ...], "hypothesis-literal-pool":
    [...]}: each patch set of `RECORDED_KINDS` installed in this process and what it
    patched (empty: installed, nothing was missing); a part its gate skipped is listed as
    "skipped PART: why"."""
    record: dict[str, list[str]] = {}
    for kind in RECORDED_KINDS:
        for s in patch_sets(kind):
            if s.is_installed() or s.skipped:
                record[s.name] = [p.where for p in s.patches()] + [
                    f"skipped {part}: {why}" for part, why in s.skipped.items()
                ]
    return record


def describe_compat(record: dict[str, list[str]] | None) -> str:
    """One line for reports and case files: "thunder-named-tensor (Tensor.align_as, ...)"."""
    if record is None:
        return "not recorded"
    if not record:
        return "none installed"
    return "; ".join(
        f"{n} ({', '.join(added) or 'nothing missing'})" for n, added in record.items()
    )


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
