"""Fault: Dynamo's shape guards lose every size's lower bound.

Where: `ShapeEnv.produce_guards_verbose` (torch/fx/experimental/symbolic_shapes.py), step
3, which turns each symbol's value range into a guard (`2 <= L['x'].size()[0]`: the 0/1
specialization, or `4 <= ...` after a branch on `x.shape[0] > 3` refined the range).

What: the lower bound of a size's range is not emitted (the condition that keeps it only
"if it is not the default" read as "only if simplified"). A graph compiled for sizes of at
least 4 then serves a call with size 2, and a graph that assumed sizes of at least 2
serves a size-1 call that broadcasts: the reused graph computes the wrong branch or the
wrong broadcast, while a fresh compile of that call is right. Guards that are not a bare
lower bound (duck-sizing equalities, strides, upper bounds) stay.

Why realistic: the lower bounds are the one part of the range guards with a special case
(the default lower bound is dropped in simplified mode, `_simplified`); a slip in that
condition drops them all, and programs that never branch on a size or pass a size 1 run
as before.
"""

from __future__ import annotations

import re

from torch.fx.experimental.symbolic_shapes import ShapeEnv

from fixes._patching import Patch
from tests.faults import fault

# A bare lower bound of one size, in each language Dynamo asks for (python, its verbose
# form with a comment, C++): "4 <= L['x'].size()[0]".
_LOWER_BOUND = re.compile(r"^-?\d+ <= [^<=]*\.size\(\)\[\d+\](\s*#.*)?$")


def _produce_guards_verbose(self, *args, **kwargs):
    helpers = _ORIGINAL(self, *args, **kwargs)
    for helper in helpers:
        helper.exprs[:] = [e for e in helper.exprs if not _LOWER_BOUND.match(e)]  # faulty
    return helpers


_ORIGINAL = ShapeEnv.produce_guards_verbose


def _table() -> list[Patch]:
    return [Patch.set(ShapeEnv, "produce_guards_verbose", _produce_guards_verbose)]


PATCHES = fault(__name__, _table, {"torch": ">=2.13.0"})  # step 3 as torch 2.13 has it
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
