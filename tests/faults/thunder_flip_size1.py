"""Fault: Thunder's torch-executor lowering of flip does nothing when ANY flipped dim has
size 1.

Where: the execution transform that the torch executor registers for `thunder.torch.flip`
(`thunder/executors/torchex.py: _flip_transform`, the `torch.flip` call a traced
`torch.flip`/`Tensor.flip` is lowered to).

What: a fast path for "flipping a dim of size 1 changes nothing" is written with `any`
where `all` was meant, so the lowering emits a plain copy: `torch.flip(x, (0, 1))` of a
`(3, 1)` tensor returns `x` instead of `x` reversed along dim 0. Flips of one dim, and
flips whose dims are all longer than 1 (or all of size 1), stay right; values are wrong
only when a size-1 dim is flipped together with a longer one (`thunder.wrong-result`).

Why realistic: skipping size-1 dims is a common fast path in flip/reverse lowerings, and
an any/all slip in it survives every test that flips one dim at a time or uses shapes
without 1s.
"""

from __future__ import annotations

import thunder.executors.torchex as torchex
import thunder.torch as ltorch
from thunder.core import utils
from thunder.extend import ImplInfo

from fixes._patching import Patch
from tests.faults import THUNDER, fault


def _flip_transform(a, /, *dims):
    dims = utils.extract_shape_from_varargs(dims)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    canonical = utils.canonicalize_dims(a.ndim, dims) if dims and a.ndim > 0 else ()
    if any(a.shape[d] == 1 for d in canonical):  # faulty fast path: meant all(...)
        return torchex.flip(a, ())
    return torchex.flip(a, dims)


def _table() -> list[Patch]:
    table: list[Patch] = []
    original = torchex.ex.implmap[ltorch.flip.id]
    faulty = ImplInfo(checker=original.checker, execution_transform=_flip_transform)
    table.append(Patch.set(torchex.ex.implmap, ltorch.flip.id, faulty, item=True))
    return table


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
