"""Known upstream bug (lightning-thunder 0.2.6, Thunder's decompositions): an in-place op
on `x.contiguous()` of a contiguous input does not reach the input.

PyTorch's `contiguous()` returns `self` when the tensor is already contiguous, so
`x.contiguous().add_(1.0)` adds 1 to `x`. Thunder's `contiguous` decomposes to
`clang.stride_order` (thunder/torch/__init__.py), a new tensor: where that decomposition
runs, the write lands in the copy and `x` is left as it was (`x` after the call
[0., 0., 0.] where eager gives [1., 1., 1.]; everything computed from `x` afterwards is
wrong too). On CPU the torch executor runs `contiguous` whole (`torch.Tensor.contiguous`,
which returns `x`), so plain `thunder.jit` is right; the Thunder-decompositions lane
(fuzz/backends/thunderprims) runs the decomposition, as an executor that takes prims
does (nvFuser, unverified here: no GPU). Found by the lane's first fault-bench nights
(2026-12-07), as a lost write through `x.contiguous().as_strided(...)`.
"""

import torch


def program(x):
    x.contiguous().add_(1.0)
    return (x * 2.0,)


def calls():
    return [(torch.zeros(3),)]


LANES = ("thunderprims",)
EXPECT = ("thunderprims.aliasing", "thunderprims.wrong-result")
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): on the decompositions lane, a program that calls
# `contiguous()` and an in-place op loses an input write, and values computed after it.
MATCHES = (
    {
        "kind": "thunderprims.aliasing",
        "details": r"after the call differs from eager \(mutation\)",
        "facts": {"ops": ["torch.Tensor.contiguous", "torch.Tensor.*_"]},
    },
    {
        "kind": "thunderprims.wrong-result",
        "details": r"values differ",
        "facts": {"ops": ["torch.Tensor.contiguous", "torch.Tensor.*_"]},
    },
)
# Searched the issue index for "thunder contiguous in-place add_ input not updated
# nvfuser stride_order copy": nearest Lightning-AI/lightning-thunder#1109 (nvFuser
# translation of in-place copy_), #791 (prims.copy_ with nvFuser); no report of this.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "In-place op on x.contiguous() is lost when Thunder decomposes contiguous"
DESCRIBE = """
`x.contiguous()` returns `x` itself when `x` is contiguous, so `x.contiguous().add_(1.0)`
updates `x` in PyTorch. Thunder decomposes `contiguous` to `clang.stride_order`, a new
tensor; when that decomposition runs (an executor that takes prims rather than
`torch.Tensor.contiguous` whole), the in-place add updates the copy and `x` is unchanged:
[0., 0., 0.] instead of [1., 1., 1.], and `x * 2.0` returns zeros instead of twos. With
the default executors on CPU the torch executor runs `contiguous` whole and the result is
right. Thunder's alias handling may need to treat `contiguous` (and `stride_order` of an
already ordered tensor) as a possible view, as PyTorch does.
"""
