"""Fault: ExecuTorch's emitter writes a size list's constants before its symbolic sizes.

Where: `executorch.exir.emit._emitter._Emitter._emit_int_list` (every `int[]`/`SymInt[]`
operand: `view_copy`'s and `expand_copy`'s sizes, `permute`'s dims, `sum`'s dims, ...).

What: an int list is boxed, one value id per item: a size computed at run time (a SymInt)
is the id of the value that holds it, a constant is emitted as a new value. The faulty
emitter boxes the constants first and the symbolic items after them (two passes, the
ids concatenated), so `view(x, [s0, 3])` runs as `view(x, [3, s0])`: a wrong shape, a
kernel that refuses the size, or wrong values, at every call where the sizes differ.
Static lists (all constants) and all-symbolic lists are unaffected.

Why realistic: emitting the constants in one pass (to reuse their values) and the
abstract values in another reads like the same loop, and every test with static shapes
passes.
"""

from __future__ import annotations

from executorch.exir.emit._emitter import _AbstractValue, _Emitter
from executorch.exir.schema import EValue, IntList

from fixes._patching import Patch
from tests.faults import fault


def _emit_int_list(self, val):
    constants = [  # faulty: two passes, the constants' ids first
        self._emit_evalue(self._constant_to_evalue(item, None)).id
        for item in val
        if isinstance(item, int)
    ]
    symbolic = [item.id for item in val if isinstance(item, _AbstractValue)]
    return EValue(IntList(constants + symbolic))


def _table() -> list[Patch]:
    return [Patch.set(_Emitter, "_emit_int_list", _emit_int_list)]


PATCHES = fault(__name__, _table, {"executorch": ">=1.5.1"})  # the emitter as 1.5.1 has it
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
