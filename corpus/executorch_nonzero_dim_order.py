"""Known upstream bug (ExecuTorch 1.5.1 runtime): `nonzero` returns wrong indices.

The exported program plans `nonzero`'s output with PyTorch's strides for it, dim order
(1, 0), but the portable `nonzero.out` kernel writes it row-major, so the runtime returns
scrambled indices: for x = [[1,-1,2],[-3,4,5]] eager gives [[0,0],[0,2],[1,1],[1,2]] and
the runtime [[0,1],[0,1],[0,1],[2,2]]. Ops downstream of it then fail with "different dim
orders". Found by the EXIR lane (exir.runtime-result); our fixes do not touch it.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0),)


def calls():
    return [(torch.tensor([[1.0, -1.0, 2.0], [-3.0, 4.0, 5.0]]),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "details": r"values differ \(exact dtype\)",
        "facts": {"ops": "aten.nonzero.default:non-contiguous"},
    },
)
UPSTREAM = "https://github.com/pytorch/executorch/issues/11086"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "nonzero output is planned as dim order (1, 0) but the portable kernel writes it row-major"
DESCRIBE = """
torch.export gives `nonzero`'s output ATen's strides for it (shape (n, ndim), stride (1,
n)), so its TensorSpec gets dim order (1, 0), while the portable `nonzero.out` kernel
writes the indices row-major. The runtime therefore returns scrambled indices: for x =
[[1,-1,2],[-3,4,5]], `torch.nonzero(x > 0)` is [[0,0],[0,2],[1,1],[1,2]] in eager and
[[0,1],[0,1],[0,1],[2,2]] on the runtime. Ops downstream either misread the buffer or
fail their dim-order checks ("2 input tensors have different dim orders"). This is the
class of problem in #11086 (node metadata dim order that the kernels do not implement);
LegalizePortableDimOrderPass from #20878 does not cover it. Either the kernel should
honour the output's dim order, or nonzero's output spec should be given the default dim
order.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/20878",
    "https://github.com/pytorch/executorch/issues/16507",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch nonzero dim order
# wrong output strides"; "pytorch/executorch issue 11086 nonzero"; "torch.nonzero
# executorch wrong result runtime incorrect indices"; "nonzero output non-contiguous
# stride executorch memory planning dim_order (1, 0)"; "executorch channels_last input
# linear expand_copy different dim orders runtime error"; "Ops with implicit dim order
# conversion fail at runtime nonzero"; "LegalizePortableDimOrderPass insert contiguous
# dim order copy portable ops"; "executorch aten.nonzero portable kernel transposed
# strides column-major output". Found:
# https://github.com/pytorch/executorch/issues/11086.
