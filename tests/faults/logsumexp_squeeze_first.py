"""Fault: torch's `logsumexp` decomposition squeezes only the first reduced dim of the max.

Where: `torch._decomp.decomposition_table[aten.logsumexp.default]` (the `torch._refs`
decomposition, in the core ATen decompositions that `to_edge`'s `run_decompositions`
applies, so EXIR lowers `logsumexp` through it).

What: the decomposition computes `log(sum(exp(x - max))) + max`, with the max taken
with `keepdim=True` and squeezed afterwards when `keepdim=False`. The faulty version
squeezes `dim[0]` only, as code written when `logsumexp` took one int dim would. With
one reduced dim nothing changes; with several and `keepdim=False`, the max keeps the
other reduced dims as size-1 dims and the final add broadcasts the result against them:
`logsumexp(x, dim=(0, 2))` of a `(3, 4, 5)` tensor is `(4, 4)` instead of `(4,)` (a
wrong shape and wrong values: `exir.runtime-result`, or `exir.crash` when a later op
rejects the shape).

Why realistic: `torch.squeeze` took a single int dim until torch 2.0; a decomposition
ported from then and generalised to a tuple of reduced dims for the sum and the max but
not for the squeeze is an easy slip, and single-dim and keepdim calls never show it.

The slip is in upstream's body, under upstream's wrappers: an int input is promoted to
float before the body, so it shows the fault as a float input does. Until the
seventeenth session the plugin replaced the wrappers too and fell back to the stock
decomposition for non-float inputs (benchmarks/RESULTS.md: figures before then are for
that narrower fault).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch._decomp import decomposition_table
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND
from torch._prims_common.wrappers import elementwise_type_promotion_wrapper, out_wrapper

from fixes._patching import Patch
from tests.faults import TORCH, fault

_aten = torch.ops.aten
_KEY = _aten.logsumexp.default


# torch._refs.logsumexp's body with the slip, under the same wrappers as upstream's (an
# int input is promoted to float before the body, as upstream's is).
@out_wrapper()
@elementwise_type_promotion_wrapper(
    type_promoting_args=("self",),
    type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT,
)
def _logsumexp(self, dim, keepdim=False):
    dims = tuple(dim) if isinstance(dim, Iterable) else (dim,)
    if self.numel() == 0:
        return torch.sum(torch.exp(self), dims, keepdim).log()
    maxes = torch.amax(torch.real(self), dims, keepdim=True)
    maxes = torch.masked_fill(maxes, maxes.abs() == float("inf"), 0)
    # faulty: only the first reduced dim (upstream: torch.squeeze(maxes, dims))
    maxes_squeezed = maxes if keepdim else torch.squeeze(maxes, dims[:1])
    result = torch.sum(torch.exp(self - maxes), dims, keepdim)
    return result.log().add(maxes_squeezed)


_original = decomposition_table[_KEY]


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(decomposition_table, _KEY, _logsumexp, item=True))
    return table


PATCHES = fault(__name__, _table, TORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
