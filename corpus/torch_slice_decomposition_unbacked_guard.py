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
