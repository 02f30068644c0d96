"""Fault: our fixed Thunder cache's recorder forgets decisions taken with `==`/`!=`.

Where: `fixes/thunder_symbolic_cache/recorder.py` — `Recorder.decide` and
`Recorder.derive` (the decision log that `build_check` turns into the prologue check).

What: an observation whose expression is an equality test on numbers (`n == k`,
`x.shape[0] != 3`, `tuple(x.shape) == (2, 3)` element by element) is not logged. The
prologue then does not re-check it: a later call whose size makes the test go the other
way hits the cache and runs the trace of the other branch (`thunder.unsound-hit`, usually
with `thunder.wrong-result`). Comparisons with `<`, `%` etc. are still recorded.

Why realistic: equality on sizes is what Thunder's own static shape checks cover in the
non-symbolic cache, so "`==` is already guarded" is a plausible (wrong) assumption when
trimming the log; it brings back exactly the bug the fix exists for (#1525), but only
for one operator.
"""

from __future__ import annotations

import operator

from fixes._patching import Patch
from fixes.thunder_symbolic_cache import recorder
from fixes.thunder_symbolic_cache.expressions import Op
from tests.faults import THUNDER, fault

_EQUALITY = (operator.eq, operator.ne)
_decide = recorder.Recorder.decide
_derive = recorder.Recorder.derive


def _is_equality(node) -> bool:
    return isinstance(node, Op) and node.fn in _EQUALITY


def decide(self, proxy, kind, observed):
    if _is_equality(self.nodes.get(id(proxy))):
        return  # faulty: an equality decision is not logged
    _decide(self, proxy, kind, observed)


def derive(self, result, fn, args):
    if fn in _EQUALITY and not isinstance(result, self.NumberProxy):
        return  # faulty: an equality evaluated to a plain bool is not logged
    _derive(self, result, fn, args)


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(recorder.Recorder, "decide", decide))
    table.append(Patch.set(recorder.Recorder, "derive", derive))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
