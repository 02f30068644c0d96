"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): a view of an input whose dynamic
dim export specialized fails "_ViewSpec is incompatible with its base on creation".

x's dim 0 is exported as Dim.AUTO(min=2, max=3) with an example of size 2; the branch
`v.shape[0] > 2` guards s0 <= 2, so export specializes the dim to 2 (range_constraints
empty). The placeholder's fake tensor keeps a SymInt whose expression is the constant 2,
while `reshape(-1)`'s view_copy has the plain int 2. `determine_tensor_dynanism`
(executorch/exir/tensor.py) calls any SymInt dynamic, so the input's TensorSpec is
DYNAMIC_BOUND (1) and the view's STATIC (0), and ReplaceViewCopyWithViewPass raises
"_ViewSpec is incompatible with its base on creation. It has shape_dynamism=0, but its
base has shape_dynamism=1." Eager returns x + 1. Found by the fixes-on EXIR campaign
(1-minimal: reshape(-1), a number input, a shape branch); the fixes do not change it.
"""

import torch


def program(x):
    v = x.reshape(-1)
    if v.shape[0] > 2:
        return (v * v,)
    return (v + 1.0,)


def calls():
    return [(torch.randn(2),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 3)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"_ViewSpec is incompatible with its base on creation\.\s+It has "
        r"shape_dynamism=0, but its base has shape_dynamism=1",
    },
)
# Searched the issue index for "_ViewSpec is incompatible with its base shape_dynamism"
# and "determine_tensor_dynanism specialized SymInt": no upstream report found.
UPSTREAM = "https://github.com/pytorch/executorch/issues/20008"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "_ViewSpec shape_dynamism mismatch when export specializes a dynamic input dim"
DESCRIBE = """
`x` is exported with `Dim.AUTO(min=2, max=3)` and an example of size 2; the branch `if
v.shape[0] > 2` (with `v = x.reshape(-1)`) guards `s0 <= 2`, so export specializes the
dim to 2 (empty range_constraints). The placeholder's fake tensor still holds a SymInt
whose expression is the constant 2, while the `view_copy` has the plain int 2.
`determine_tensor_dynanism` (exir/tensor.py) calls any SymInt dynamic, so the input's
TensorSpec is DYNAMIC_BOUND and the view's STATIC, and `ReplaceViewCopyWithViewPass`
raises "_ViewSpec is incompatible with its base on creation. It has shape_dynamism=0,
but its base has shape_dynamism=1." Eager returns `x + 1`. Treating a SymInt that
evaluates to a constant as static in `determine_tensor_dynanism`, or falling back to
`view_copy` instead of raising, would avoid the failure.
"""
# Searched again on 2026-12-06 (issue and code indexes): "_ViewSpec is incompatible with
# its base on creation shape_dynamism"; "executorch to_executorch view_copy _ViewSpec
# incompatible base shape_dynamism DYNAMIC_BOUND STATIC"; "_ViewSpec is incompatible
# with its base on creation LSTM dynamic shapes ReplaceViewCopyWithViewPass
# determine_tensor_dynanism"; "Fixes #20008 ViewSpec shape_dynamism". Found:
# https://github.com/pytorch/executorch/issues/20008.
