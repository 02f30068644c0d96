"""Fault: our fixed Thunder cache's prologue does not check the type of number inputs.

Where: `fixes/thunder_symbolic_cache/prologue.py` — `generate`, which writes the
prologue's `check_symbolic_decisions` (the name `compile_check` calls).

What: the generated check drops its `type(n) is int` / `type(n) is float` lines and
keeps only the value checks. `3` and `3.0` compare equal, so a call that passes `3.0`
where the trace saw `3` hits the cache and runs a trace specialised to an int
(`thunder.unsound-hit`: a fresh trace of the call differs; `thunder.wrong-result` too when
the int trace computes another dtype or value than eager).

Why realistic: "the value is checked, and 3 == 3.0" is the kind of reasoning that
removes a type guard as redundant; stock Thunder 0.2.6 has exactly this gap (the
harness's `retype` call plans exist for it), and the fix closes it with these lines.
"""

from __future__ import annotations

from fixes._patching import Patch
from fixes.thunder_symbolic_cache import prologue
from tests.faults import THUNDER, fault

_original = prologue.generate


def generate(checks, typed, memo, order, fn_name):
    return _original(checks, {}, memo, order, fn_name)  # faulty: number types not checked


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(prologue, "generate", generate))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
