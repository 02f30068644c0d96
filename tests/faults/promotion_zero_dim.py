"""Fault: ExecuTorch's mixed-type pass lets a 0-dim tensor never change the dtype.

Where: `executorch.exir.passes.remove_mixed_type_operators` — the `elementwise_dtypes`
that `RemoveMixedTypeOperators.call_operator` computes the promoted dtype with.

What: when an operand has dims, 0-dim operands (in the edge program every Python number
is one, made by ScalarToTensorPass) are left out of the promotion. PyTorch's rule is that
a 0-dim tensor or a number does not *raise* the dtype within its category, but a higher
category still wins: `int_tensor * 0.5` is float. With the fault the pass computes int,
casts 0.5 to 0 and the runtime returns an int tensor of zeros (`exir.runtime-result`).

Why realistic: it is a half-remembered version of the wrapped-number rule (the
category clause forgotten), in exactly the code that implements that rule.
"""

from __future__ import annotations

import torch
from executorch.exir.passes import remove_mixed_type_operators as rmt

from fixes._patching import Patch
from tests.faults import EXECUTORCH, fault

_original = rmt.elementwise_dtypes


def elementwise_dtypes(*args, **kwargs):
    dimensioned = [a for a in args if isinstance(a, torch.Tensor) and a.dim() > 0]
    if dimensioned and len(dimensioned) < len(args):
        args = tuple(dimensioned)  # faulty: 0-dim operands and numbers dropped
    return _original(*args, **kwargs)


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(rmt, "elementwise_dtypes", elementwise_dtypes))
    return table


PATCHES = fault(__name__, _table, EXECUTORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
