"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): `nonzero` of an empty tensor
cannot be lowered: "0 in strides is not supported for ExecuTorch."

When the input's numel is statically 0, `nonzero`'s fake kernel (like eager) returns a
(0, ndim) tensor with strides (1, 0). The stride of a size-0 tensor is meaningless, but
`dim_order_from_stride` (executorch/exir/tensor.py) runs `torch._check(s != 0)` on every
concrete stride when building the TensorSpec, so `to_executorch` raises
"RuntimeError: 0 in strides is not supported for ExecuTorch." for
`torch.nonzero(x > 0)` with x of shape (0,), where eager returns an empty (0, 1) int64
tensor. Found by the fixes-on EXIR campaign (boolean-mask indexing through `nonzero` of a
size-0 input); our fixes do not touch it.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0),)


def calls():
    return [(torch.randn(0),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"0 in strides is not supported for ExecuTorch",
    },
)
# Searched the issue index for "0 in strides is not supported for ExecuTorch" and
# "executorch empty tensor zero stride nonzero size 0": no upstream report found
# (pytorch/executorch#15472 only skips the check for symbolic strides).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'to_executorch rejects nonzero of an empty input: "0 in strides is not supported"'
DESCRIBE = """
`torch.nonzero(x > 0)` with `x` of shape (0,) returns an empty (0, 1) int64 tensor in
eager. Its fake tensor has strides (1, 0), like eager. When building the TensorSpec,
`dim_order_from_stride` (exir/tensor.py) runs `torch._check(s != 0, ...)` on every
stride, so to_executorch raises `RuntimeError: 0 in strides is not supported for
ExecuTorch.` The stride of a dim in a zero-element tensor carries no layout information,
so the check could skip tensors whose numel is 0 (or treat such strides like size-1
strides). Otherwise any program whose `nonzero` (or boolean-mask indexing through it)
sees a statically empty input cannot be lowered.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/15472",
    "https://github.com/pytorch/executorch/pull/19516",
    "https://github.com/pytorch/executorch/pull/14725",
)
# Searched again on 2026-12-06 (issue and code indexes): ""0 in strides is not supported
# for ExecuTorch""; "executorch zero stride error empty tensor nonzero size 0
# to_executorch TensorSpec dim order". Found: no report of this bug.
