"""Known upstream quirk (ExecuTorch 1.5.1 memory planning): a data-dependent size bounded
by 1 is planned as 2 elements.

`positive_head(x, 1)` returns at most one element: its fake kernel states `u <= 1` with
`torch._check`, and `range_constraints` says u in [0, 1]. The planned TensorSpec for it
(and for `* 2` downstream) holds 2 elements: the upper bound is evaluated with torch's
size-oblivious reasoning, which assumes an unbacked size is at least 2. With bounds of 2
or more the plan is exact (see tests/exir/test_exir_oracles.py), so this is over-allocation,
not a soundness bug; exir.bound-loss reports it because the harness expects custom-op
outputs to be planned at exactly their declared bound. The aligned byte size is the
same (16 bytes) for float32, so it costs nothing here, but the shape in the plan is wrong.
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    return (torch.ops.fuzz.positive_head(x, 1) * 2,)


def calls():
    return [(torch.randn(4, 3),), (torch.randn(5, 3),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8)}}
EXPECT = ("exir.bound-loss",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# Any unbacked size bounded by 1 shows this (a bound of 2 or more is planned exactly).
MATCHES = ({"kind": "exir.bound-loss", "data": {"needed": 1, "planned": 2}},)
UPSTREAM = None  # no upstream report found
# an over-allocation: the results are right.
CLASS = "plan-quality"
