"""Known upstream bug (lightning-thunder 0.2.6, Thunder's decompositions): round, floor,
ceil and trunc of an integer tensor return the tensor itself, so an in-place op on the
result writes into the input.

`v = torch.round(x); v.add_(1)` with an int64 `x` leaves `x` unchanged in PyTorch
(`torch.round` returns a new tensor). Thunder's `clang.round` (and `floor`, `ceil`,
`trunc`, thunder/clang/__init__.py) short-circuits on exact dtypes with `return a`: the
traced result is the input proxy, and where that decomposition runs the in-place add is
a write into `x` (`x` after the call [1, 2, 3] where eager keeps [0, 1, 2]; `x * 1`
returns [1, 2, 3]). On CPU the torch executor runs `torch.round` whole (a new tensor), so
plain `thunder.jit` is right; the Thunder-decompositions lane (fuzz/backends/thunderprims)
runs the decomposition, as an executor that takes prims does (nvFuser, unverified here:
no GPU). Found by that lane's fault-bench nights (2026-12-07, seed 2), as a `copy_` into
`round(x)` and as an `add_` into `round(neg(x))` read again by a later `cat`.
"""

import torch


def program(x):
    v = torch.round(x)
    v.add_(1)
    return (x * 1,)


def calls():
    return [(torch.arange(3),)]


LANES = ("thunderprims",)
EXPECT = ("thunderprims.aliasing", "thunderprims.wrong-result")
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): on the decompositions lane, an integer program with
# a rounding op and an in-place op writes an input, or values computed after the write.
# (`round` is the generator's; floor, ceil and trunc, not drawn, fail the same way.)
MATCHES = (
    {
        "kind": "thunderprims.aliasing",
        "details": r"after the call differs from eager \(mutation\)",
        "facts": {"ops": ["torch.round", "torch.Tensor.*_"], "dtypes": ["int*"]},
    },
    {
        "kind": "thunderprims.wrong-result",
        "details": r"values differ",
        "facts": {"ops": ["torch.round", "torch.Tensor.*_"], "dtypes": ["int*"]},
    },
)
# Searched the issue index for "thunder round floor integer returns input alias in-place"
# and "clang round short-circuits exact dtype return a": no report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "round/floor/ceil/trunc of an integer tensor alias their input in Thunder's decomposition"
DESCRIBE = """
`torch.round`, `torch.floor`, `torch.ceil` and `torch.trunc` of an integer tensor return a
new tensor in PyTorch. Thunder's `clang.round` (and `clang.floor`, `clang.ceil`,
`clang.trunc`) short-circuit on exact dtypes with `return a`, so the traced result is the
input itself. When the decomposition runs (an executor that takes prims rather than the
torch op whole), an in-place op on the result writes into the input:
`v = torch.round(x); v.add_(1)` changes `x` from [0, 1, 2] to [1, 2, 3]. With the default
executors on CPU the torch executor runs `torch.round` whole and the result is right.
Returning a copy (or marking the result as a new tensor) for exact dtypes would match
PyTorch.
"""
