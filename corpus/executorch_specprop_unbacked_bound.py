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
DIMS = {"x": {0: (2, 8)}}
UPSTREAM = "https://github.com/pytorch/executorch/pull/15485"
CLASS = "bug"
