"""Per-process setup shared by replay, the nightly parent's workers and pytest.

Fixes are process-wide monkeypatches, so they are applied first, before any lane (and
the stack it wraps) is imported. Plugins are modules imported after that, e.g. a test
that swaps in a lane that crashes on purpose (tests/crash_ops.py). A plugin that cannot be
imported is a usage error (PluginError: the commands exit 2); `check_plugins` finds a
missing one without importing it, so a parent process can refuse it before any work.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
from collections.abc import Sequence

import fixes
from fuzz import speedups
from fuzz.defaults import FIXES_SWITCH
from fuzz.errors import FuzzError, error_text


def fixes_switch(value: str | None = None) -> str:
    """The fixes switch: an explicit value, else $FUZZ_FIXES, else
    fuzz.defaults.FIXES_SWITCH."""
    return (value or os.environ.get(fixes.ENV_VAR) or FIXES_SWITCH).strip()


class PluginError(FuzzError):
    """A --plugin module cannot be imported; str() is the line the commands print after
    "error: ": `--plugin NAME: cannot import: ModuleNotFoundError: No module named ...`."""

    def __init__(self, name: str, cause: BaseException):
        super().__init__(f"--plugin {name}: cannot import: {error_text(cause, None)}")
        self.name = name


def check_plugins(plugins: Sequence[str]) -> None:
    """Raise PluginError for the first plugin that does not exist, without importing it
    (`importlib.util.find_spec` imports only its parent packages). A plugin that exists
    but raises on import is found by `prepare`, where it is imported."""
    for name in plugins:
        try:
            spec = importlib.util.find_spec(name)
        except Exception as e:  # a parent package is missing or raises; an empty name
            raise PluginError(name, e) from e
        if spec is None:
            raise PluginError(name, ModuleNotFoundError(f"No module named {name!r}", name=name))


def prepare(
    switch: str | None = None, plugins: Sequence[str] = (), speedups_switch: str | None = None
) -> dict[str, str]:
    """Apply the fixes switch (raises fixes.FixError on a bad one) and the speedups switch
    (fuzz.speedups; raises SpeedupsError), import plugins (raises PluginError for one that
    cannot be imported), and return the fixes active in this process (name -> state)."""
    speedups.apply(speedups_switch)
    fixes.apply(fixes_switch(switch))
    for name in plugins:
        try:
            importlib.import_module(name)
        except Exception as e:
            raise PluginError(name, e) from e
    return fixes.active()


def install_speedups(lanes: Sequence[str]) -> dict:
    """Install the speedups of `lanes` the switch names now (the lanes would at their
    first program), so that what is recorded is what runs; returns fuzz.speedups.state().
    A lane whose stack does not import installs nothing (lane_unavailable says why)."""
    for lane in dict.fromkeys(speedups.SPEEDUPS_OF.get(lane, lane) for lane in lanes):
        name = speedups.MODULES.get(lane)  # a plugin's lane: none
        if name is None or not speedups.enabled(lane):
            continue
        try:
            module = importlib.import_module(name)
        except Exception:  # the stack does not import; the lane reports it
            continue
        module.install()
    return speedups.state()


def install_compat(lanes: Sequence[str]) -> dict:
    """Install the compat shims of `lanes` now (the lanes would when they import their
    stack; not switchable), so that what is recorded is what runs; returns
    fuzz.speedups.compat_state()."""
    for lane in lanes:
        for name in speedups.COMPAT.get(lane, ()):
            importlib.import_module(name).SHIM.install()
    return speedups.compat_state()


def settle_long_lived_objects() -> int:
    """Collect garbage once, then move every object alive now into the garbage collector's
    permanent generation (`gc.freeze()`); returns how many there are.

    Call it once the stacks are imported. torch, ExecuTorch and Thunder leave ~500,000
    objects that live as long as the process; every full collection traversed them all,
    which was 18 % of an EXIR worker's time (`benchmarks/bench_lane.py`;
    benchmarks/journal/2026-11-30.md). Frozen objects are still freed by reference
    counting; only a reference cycle among them that becomes garbage later would be
    kept."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def all_fixes_on() -> bool:
    """Whether every registered fix is in effect here (applied, upstream or absent)."""
    return set(fixes.all_fixes()) <= set(fixes.active())


def lane_unavailable(name: str, device: str) -> str | None:
    """Why lane `name` cannot run on `device` in this process, or None."""
    import torch

    from fuzz.backends.registry import get_lane

    if device == "cuda" and not torch.cuda.is_available():
        return "no CUDA device"
    try:
        lane = get_lane(name)
    except ValueError:
        raise
    except Exception as e:  # the lane module is missing or its stack does not import
        return f"lane {name} unavailable: {error_text(e, None)}"
    return lane.unavailable(device)
