"""Fault: our fixed Thunder cache replays the exact value of every number `math.isfinite`
sees, instead of its finiteness (an over-specialisation, not a soundness bug).

Where: `fixes/thunder_symbolic_cache/patches.py` — `MathWithFiniteness.isfinite`,
which `clang.arange` calls on its start, step and stop.

What: `isfinite(x)` of a number proxy goes through `float(x)` again, and the recorder logs
the exact value observed. Every `torch.arange(n)` (and every op that builds an index range
with it: `diagonal`, `take_along_dim` index helpers, `embedding` ranges) then pins its
sizes: a later call with another size misses where the entry's trace is its own. No hit is
unsound; the cache only recompiles more. The seeded guard on the fixed cache's missed legal
hits per program (tests/stacks/fixes/test_cache_figures.py) must fail with it installed.

Why realistic: it is the fix as it was before 2026-12-06 (a `float()` on a proxy is a
decision, and logging it exactly is the safe default): the narrowing is easy to lose in a
refactor of the conversion patches.
"""

from __future__ import annotations

from fixes._patching import Patch
from fixes.thunder_symbolic_cache import patches
from tests.faults import THUNDER, fault


def isfinite(self, x, /):
    return self._module.isfinite(x)  # faulty: float(x) is observed, its value logged


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(patches.MathWithFiniteness, "isfinite", isfinite))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
