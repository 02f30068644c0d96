"""Fault: Thunder's core-language pad reads each dim's padding pair as (high, low).

Where: `thunder.clang.pad`, the decomposition layer between `thunder.torch.pad` (and the
other decompositions that pad: convolution's) and `prims.pad`, whose config per dim is
`(low, high, interior)`.

What: the pair is passed on swapped, `(high, low, interior)`: `F.pad(x, (1, 2))` pads
the last dim with 2 before and 1 after. The shape is right (the same total per dim);
the values are shifted wherever a dim is padded unevenly.

Why live only on the Thunder-decompositions lane: on CPU the torch executor claims
`F.pad` whole and calls `torch.nn.functional.pad`, so the decomposition is traced (for
shapes, which stay right) but never run: the Thunder lane cannot see this fault (the
issue that asked for the lane measured it so). The Thunder-decompositions lane runs the
decomposition and `prims.pad` on the torch executor: `thunderprims.wrong-result`.

Why realistic: `F.pad`'s pairs are (left, right) per dim, listed from the last dim,
while prims take (low, high, interior) per dim from the first; a lowering that reorders
the pairs can as easily swap inside them, and symmetric pads (the common case in
convolution padding) never notice.
"""

from __future__ import annotations

import thunder.clang as clang
import thunder.core.prims as prims
from thunder.core.langctxs import Languages, langctx

from fixes._patching import Patch
from tests.faults import THUNDER, fault


@langctx(Languages.CLANG)
def _pad(input, padding_value, padding_config):
    swapped = [(high, low, interior) for low, high, interior in padding_config]  # faulty
    return prims.pad(input, padding_value, swapped)


def _table() -> list[Patch]:
    return [Patch.set(clang, "pad", _pad)]


PATCHES = fault(__name__, _table, THUNDER)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
