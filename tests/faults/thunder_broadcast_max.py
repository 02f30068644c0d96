"""Fault: Thunder computes a broadcast dim as the larger of the two sizes.

Where: `thunder.clang.utils.compute_broadcast_shape` (the name `maybe_broadcast_impl`,
i.e. every elementwise binary op and `where`, calls).

What: the broadcast size of a dim is the largest size (`if size > common: common =
size`), with the compatibility check kept.
That is the broadcast rule for every size but 0: PyTorch broadcasts `0` against `1` to
`0`, `max` gives 1, and expanding the empty operand to 1 fails at trace time
(`thunder.crash`) where eager returns an empty tensor.

Why realistic: `max` is the well-known shortcut for the broadcast rule, and it is right
on every non-empty shape, which is all most tests use.
"""

from __future__ import annotations

import sys
from functools import reduce

import thunder.clang
import thunder.clang.utils
from thunder.core import utils

from fixes._patching import Patch
from tests.faults import THUNDER, fault


def compute_broadcast_shape(*_shapes):
    shapes = tuple(x for x in _shapes if x is not None)
    if not shapes:
        return None
    common = [1] * reduce(max, (len(s) for s in shapes))
    for shape in shapes:
        for idx in range(-1, -1 - len(shape), -1):
            utils.check(
                shape[idx] == 1 or common[idx] == 1 or common[idx] == shape[idx],
                lambda: f"Attempting to broadcast a dimension of length {shape[idx]}!",
            )
            # faulty: the larger size wins, so 0 against 1 gives 1 (written as a comparison:
            # Thunder's interpreter does not order number proxies inside builtins.max)
            if shape[idx] > common[idx]:
                common[idx] = shape[idx]
    return tuple(common)


def _modules() -> list:
    # The module `thunder.clang` calls into (`thunder.clang.clang_utils`) is not always
    # the one in sys.modules (something re-imports `thunder.clang.utils` after
    # `thunder.clang` bound it): patch both.
    mods = [thunder.clang.clang_utils, sys.modules["thunder.clang.utils"]]
    return [m for i, m in enumerate(mods) if all(m is not o for o in mods[:i])]


def _table() -> list[Patch]:
    table: list[Patch] = []
    for module in _modules():
        table.append(Patch.set(module, "compute_broadcast_shape", compute_broadcast_shape))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
