"""Known upstream bug (torch 2.13 decompositions, through ExecuTorch's to_edge): slicing a
data-dependent size with a constant bound exports, then cannot be lowered.

`v = positive(x)` has an unbacked size u (the harness's custom op: the positive entries of
x). `v[:1]` exports fine (aten.slice is unbacked-safe), but `to_edge` runs the
decompositions, and `slice_forward` (torch/_decomp/decompositions.py) guards on `u < 1`:
GuardOnDataDependentSymNode, "Could not guard on data-dependent expression u3 < 1". The
program is valid for every call (eager clamps the bound) and torch.export accepted it, so
the lowering should too. Found by the fixes-on EXIR property test (a generated program
slicing one output of `split_sign` by a number input exported as the constant 1).
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    v = torch.ops.fuzz.positive(x)
    return (v[:1],)


def calls():
    return [(torch.randn(2),), (torch.randn(3),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 3)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": r"Could not guard on data-dependent expression(?s:.*)in slice_forward",
    },
)
# Searched the issue index for "slice_forward decomposition GuardOnDataDependentSymNode
# unbacked slice to_edge run_decompositions": no upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "slice_forward decomposition guards on an unbacked size: v[:1] exports but won't decompose"
DESCRIBE = """
Slicing a tensor whose size is data-dependent (unbacked, e.g. from `nonzero` or a custom
op with a dynamic output size) with a constant bound, `v[:1]`, exports fine, since the
fake kernel for `aten.slice.Tensor` (`torch/_subclasses/fake_impls.py`,
`_compute_slice_index`) is unbacked-safe. `ep.run_decompositions()` (which ExecuTorch's
`to_edge` calls) then fails. The Python decomposition `slice_forward` in
`torch/_decomp/decompositions.py` (torch 2.13.0 lines 785-795) clamps the bounds with
plain comparisons, and `elif end_val > sizes[dim]` raises GuardOnDataDependentSymNode
"Could not guard on data-dependent expression u3 < 1". The program is valid for every
size (eager clamps the bound), so the decomposition should handle unbacked sizes the way
the fake kernel does, or with `guard_or_false` plus `torch._check`s as proposed in
#150474.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/pull/150474",
    "https://github.com/pytorch/pytorch/pull/157944",
    "https://github.com/pytorch/pytorch/issues/161393",
    "https://github.com/pytorch/executorch/issues/7998",
)
# Searched again on 2026-12-06 (issue and code indexes): "slice_forward decomposition
# unbacked GuardOnDataDependentSymNode end_val > sizes[dim]"; "Hard error when slicing a
# tensor with unbacked sizes nz[:-1] run_decompositions decompositions.py
# slice_forward"; "to_edge Could not guard on data-dependent expression slice nonzero
# unbacked decomposition executorch"; "TorchAudio Conformer model doesn't lower to edge
# IR slice_forward fix resolved". Found: no report of this bug.
