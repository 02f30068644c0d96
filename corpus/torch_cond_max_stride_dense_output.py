"""Known upstream bug (torch 2.13 torch.cond): export rejects dense branch outputs whose
contiguous strides contain Max(1, size).

`v = x[:, 1:]` has the size s1 - 1. Both branches return fresh dense tensors of shape
(s0, s1 - 1), whose fake strides are the contiguous (Max(1, s1 - 1), 1). cond's
`_bound_stride` (torch/_higher_order_ops/cond.py) looks each stride up as the product
`stride * size` of the next dim, which is `s1 - 1`, not `Max(1, s1 - 1)`, so export
raises "It seems one of cond's output stride is not a simple accumulative multiplication
of sizes. This could be because cond returns a slice of a tensor", although neither
branch returns a slice and `.contiguous()` does not help. This is not cond's documented
restriction on aliasing outputs. Eager returns x[:, 1:] + 1 for x of shape (2, 4). Found by
the fixes-on EXIR campaign (cond over a cat of a slice).
"""

import torch


def program(x):
    v = x[:, 1:]
    return (torch.cond(v.shape[0] > 3, lambda a: a * a, lambda a: a + 1.0, (v,)),)


def calls():
    return [(torch.randn(2, 4),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 5), 1: (2, 5)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the error,
# with a Max(1, ...) in the branch's strides, first or not: a fault-benchmark baseline
# night (seed 2, ninth session) had it as "stride (s40*Max(1, (s58//2)), ..." of a
# rank-3 topk output, which the pattern, asking for "stride (Max(1, ", called new.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "export",
        "details": r"cond's output stride is not a simple accumulative multiplication of "
        r"sizes(?s:.*)stride \([^)]*Max\(1, ",
    },
)
# The fix: pytorch/pytorch#189525 (registers the max(size, 1) key form); not in 2.13.0.
UPSTREAM = "https://github.com/pytorch/pytorch/issues/188151"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "torch.cond rejects dense branch outputs whose contiguous strides contain Max(1, size)"
DESCRIBE = """
With dynamic shapes, `torch.cond` fails with "It seems one of cond's output stride is
not a simple accumulative multiplication of sizes" even though both branches return
fresh contiguous tensors (e.g. `a * a` and `a + 1.0` on `v = x[:, 1:]`, shape `(s0, s1 -
1)`), and calling `.contiguous()` does not help. Fake tensors give such outputs the
contiguous strides `(Max(1, s1 - 1), 1)`, but `_bound_stride` in
`torch/_higher_order_ops/cond.py` registers the expected key for the next stride as the
plain product `stride * size` (`s1 - 1`), so the lookup of `Max(1, s1 - 1)` misses and
the RuntimeError meant for non-dense (sliced) outputs is raised. Eager returns `x[:, 1:]
+ 1` for x of shape (2, 4). This is the same root cause as #188151 (reported for
torch.compile with int inputs) and #189525 (which also registers the `max(size, 1)` key
form) should fix it; torch 2.13.0 does not contain that change.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/pull/147130",
    "https://github.com/intel/torch-xpu-ops/issues/4576",
    "https://github.com/pytorch/pytorch/pull/189525",
)
# Searched again on 2026-12-06 (issue and code indexes): "cond's output stride is not a
# simple accumulative multiplication of sizes"; "torch.cond _bound_stride Max(1, size)
# contiguous stride export dynamic shapes"; "cond output stride not simple accumulative
# multiplication Max dynamic=True regression 147130"; "torch.cond torch.compile
# dynamic=True int inputs torch.ones(rows, cols) RuntimeError stride branch outputs";
# "[cond] Register max(size, 1) stride key form pytorchbot merge Merge started". Found:
# https://github.com/pytorch/pytorch/issues/188151.
# Checked 2026-12-06: this program's repro script (python -m fuzz repro) passes on the
# torch 2.14.1 wheel and fails on 2.13.0: pytorch/pytorch#189525 shipped by 2.14.1.
FIXED_IN = "torch 2.14.1"
