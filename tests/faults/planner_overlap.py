"""Fault: ExecuTorch's greedy planner places a tensor on the last byte of a live one.

Where: `executorch.exir.memory_planning._find_max_overlapping_allocations_offset` (used
by `pick_shared_obj`, i.e. the `greedy` algorithm).

What: when a tensor is put into a shared buffer beside allocations whose lifetimes
overlap its own, its offset must be one past the end of the highest of them
(`offset + allocated_memory`). The faulty code uses the *inclusive* end
(`offset + allocated_memory - 1`, the convention of `Verifier.storage_overlap`'s
intervals): the two live tensors share one byte, and the later one's writes corrupt the
last element of the earlier one. The planner's own `Verifier.verify_storage_reuse` is not
run by `MemoryPlanningPass` when the algorithm is a `MemoryPlanningAlgorithmSuite`
(the default config), so nothing stops the plan; the harness reports `exir.overlap`.

Why realistic: inclusive versus exclusive interval ends is the classic off-by-one, and
two conventions live side by side in this very module.
"""

from __future__ import annotations

from executorch.exir import memory_planning as mp

from fixes._patching import Patch
from tests.faults import EXECUTORCH, fault


def _find_max_overlapping_allocations_offset(sobj, spec) -> int:
    max_offset = 0
    for alloc in sobj.allocations:
        if spec.lifetime[1] < alloc.spec.lifetime[0] or spec.lifetime[0] > alloc.spec.lifetime[1]:
            continue
        end = alloc.offset + alloc.spec.allocated_memory - 1  # faulty: the inclusive end
        max_offset = max(end, max_offset)
    return max_offset


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(
        Patch.set(
            mp,
            "_find_max_overlapping_allocations_offset",
            _find_max_overlapping_allocations_offset,
        )
    )
    return table


PATCHES = fault(__name__, _table, EXECUTORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
