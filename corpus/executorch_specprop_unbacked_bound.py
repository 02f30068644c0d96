"""ExecuTorch's SpecPropPass plans a data-dependent output from the wrong symbol.

`torch.ops.fuzz.positive_head(x, 10)` returns at most 10 of the positive entries of x:
its fake kernel allocates a fresh unbacked size u with `torch._check(u <= 10)`. Before
executorch 1.1, SpecPropPass traced every op twice: the TensorSpec took its shape from
the first trace's symbol while the graph, its meta["val"] and the shape-env guards used
the second one, so the spec did not carry the guards of the node it describes
(exir.spec-meta), and memory planning could size the buffer from a looser bound than the
program states (exir.bound-loss), or fail on an unbounded one.

Why it matters: memory planning of every model with a data-dependent output size
(nonzero, masked_select, NMS, custom ops) depends on the spec's upper bound; a wrong
spec means a wrong (or no) plan for the ExecuTorch runtime.

Seed bug (pytorch/executorch#15485). Only executorch < 1.1 diverges with fixes off;
fixes/executorch_specprop.py backports the fix, and executorch 1.1+ (e.g. 1.5.1) has
it upstream, so there it passes with fixes on or off.
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    y = torch.ops.fuzz.positive_head(x, 10)
    return y * 2


def calls():
    return [
        (torch.randn(4, 3),),
        (torch.randn(8, 3),),
        (torch.randn(2, 3),),
    ]


LANES = ("exir",)
# What it was filed for (on executorch 1.0.1; 1.1+ has the fix and shows neither).
FOUND = ("exir.spec-meta@spec-prop", "exir.bound-loss@plan-bounds")
DIMS = {"x": {0: (2, 8)}}
UPSTREAM = "https://github.com/pytorch/executorch/pull/15485"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "SpecPropPass double tracing leaves specs on a stale unbacked symbol"
DESCRIBE = """
Before executorch 1.1, `SpecPropPass` traced every op twice: the `TensorSpec` took its
shape from the first trace's unbacked symbol while the graph, `meta["val"]` and the
ShapeEnv guards referred to the second. For a custom op whose fake kernel allocates an
unbacked size `u` with `torch._check(u <= 10)`, the spec then did not carry the bound of
the node it describes, and memory planning could size the buffer from a looser bound
than the program states, or fail on an unbounded one. Fixed upstream by
pytorch/executorch#15485 ('Fix double-tracing in SpecPropPass').
"""
FIXED_IN = "executorch 1.1.0"
# Searched again on 2026-12-06 (issue and code indexes): "SpecPropPass traced twice
# unbacked symint spec meta val mismatch fix"; "git log --grep '#15485' on the
# executorch snapshot". Found: https://github.com/pytorch/executorch/pull/15485.
