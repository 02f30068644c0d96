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
