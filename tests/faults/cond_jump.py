"""Fault: the ExecuTorch emitter's `torch.cond` jump lands one instruction short.

Where: `executorch.exir.emit._emitter._Emitter._emit_cond`.

What: `cond` is emitted as `JumpFalse(pred) -> [true branch] -> Jump(end) -> [false
branch]`. The first jump's destination must skip the true branch *and* the jump that
ends it (`+ 2` upstream); the faulty count skips only the true branch (`+ 1`), so a
false predicate lands on the true branch's closing jump and skips the false branch too:
the cond's output is whatever its planned buffer held. A true predicate is unaffected.

Why realistic: jump offsets that must count the jump instructions themselves are a
classic off-by-one in code generators, and a test suite that only runs the true side
of a cond (or a false side whose buffer happens to hold the right values) passes.
"""

from __future__ import annotations

from executorch.exir.emit import _emitter

from fixes._patching import Patch
from tests.faults import EXECUTORCH, fault

_original = _emitter._Emitter._emit_cond


def _emit_cond(self, args, subemitter_binding_output_values):
    start = len(self.chain.instructions)
    out = _original(self, args, subemitter_binding_output_values)
    jump = self.chain.instructions[start].instr_args  # JumpFalseCall(pred, destination)
    jump.destination_instruction -= 1  # faulty: the true branch's closing jump not counted
    return out


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(_emitter._Emitter, "_emit_cond", _emit_cond))
    return table


PATCHES = fault(__name__, _table, EXECUTORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
