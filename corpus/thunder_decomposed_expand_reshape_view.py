"""Known upstream bug (lightning-thunder 0.2.6, Thunder's decompositions): a decomposition
that repeats by `expand` then `reshape` returns a stride-0 view when the repeated dim has
size 1, and an in-place op on the result raises.

`x.repeat(3).mul_(2)` for a one-element `x` works in PyTorch (`repeat` returns a new
tensor). Thunder's `repeat` decomposition (thunder/torch/__init__.py) is
`broadcast_in_dim` then `reshape`, and the torch executor runs `prims.reshape` as
`torch.reshape`, which returns a view when it can: for a size-1 dim expanded to 3 it can,
so the result has stride 0 and `mul_` raises "unsupported operation: more than one element
of the written-to tensor refers to a single memory location" (eager returns
`x.repeat(3) * 2`). Nearest `F.interpolate` by an integer factor (`dim_expander`:
`unsqueeze`, `expand`, final `reshape`) fails the same way on a spatial dim of size 1.
With more than one element the reshape has to copy, and it runs. On CPU the torch
executor runs `repeat` and `interpolate` whole, so plain `thunder.jit` is right; the
Thunder-decompositions lane (fuzz/backends/thunderprims) runs the decompositions. Found
by that lane's first 1,000-program campaign (2026-12-07, seed 2026: interpolate) and its
first nights (repeat's output sharing memory with its input).
"""

import torch


def program(x):
    return (x.repeat(3).mul_(2),)


def calls():
    return [(torch.randn(1),)]


LANES = ("thunderprims",)
EXPECT = ("thunderprims.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): on the decompositions lane, a write into a result
# whose elements share memory (only a broadcast, stride-0 tensor has that).
MATCHES = (
    {
        "kind": "thunderprims.crash",
        "details": r"more than one element of the written-to tensor refers to a single memory",
    },
)
# Searched the issue index for "thunder repeat decomposition returns view aliasing input
# expand reshape": nearest Lightning-AI/lightning-thunder#957 (reshape + in-place, whether
# torch.reshape returns a view); no report of this.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "repeat/interpolate decompositions return a stride-0 view; an in-place op on it fails"
DESCRIBE = """
When Thunder's own decomposition of `Tensor.repeat` runs (an executor that takes prims
rather than `repeat` whole), `x.repeat(3).mul_(2)` for a one-element `x` raises
"unsupported operation: more than one element of the written-to tensor refers to a single
memory location"; PyTorch returns a new tensor. The decomposition is `broadcast_in_dim`
then `reshape`, and the torch executor runs `prims.reshape` as `torch.reshape`, which
returns a view of the expanded (stride-0) tensor when the repeated dim has size 1. Nearest
`F.interpolate` by an integer factor (`dim_expander`: `unsqueeze`, `expand`, `reshape`)
does the same on a spatial dim of size 1. With the default executors on CPU the torch
executor runs both ops whole and the result is right.
"""
