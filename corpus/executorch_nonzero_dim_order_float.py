"""Known upstream bug (ExecuTorch 1.5.1 runtime): `nonzero` returns wrong indices, seen
through a float result.

The bug of executorch_nonzero_dim_order.py: the exported program plans `nonzero`'s output
with dim order (1, 0), the portable `nonzero.out` kernel writes it row-major, and the
`_to_dim_order_copy` to dim order (0, 1) that a later op needs reads the buffer
column-major. For x = [[1,-1,2],[-3,4,5]], `torch.nonzero(x > 0).sum(dim=1).float()` is
[0, 2, 2, 3] in eager and [1, 1, 1, 4] on the runtime: row i of the runtime's indices is
(flat[i], flat[i + n]) of eager's row-major (n, 2) result. That case's pattern only
recognises integer outputs ("values differ (exact dtype)"); once the indices flow into a
float result (`.float()`, a multiplication by a float) the divergence reads "values
differ (rtol=...)", which this case registers. Found by the fixes-on EXIR campaign (a
generated program `torch.nonzero(x0 > 0).sum(dim=1).float() * math.floor(x3) * x4`: the
runtime's values matched the (flat[i], flat[i + n]) prediction exactly).
"""

import torch


def program(x):
    return (torch.nonzero(x > 0).sum(dim=1).float(),)


def calls():
    return [(torch.tensor([[1.0, -1.0, 2.0], [-3.0, 4.0, 5.0]]),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a float result
# of a program that calls nonzero (integer results: executorch_nonzero_dim_order.py).
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "details": r"values differ \(rtol=",
        "facts": {"ops": "aten.nonzero.default:non-contiguous"},
    },
)
UPSTREAM = "https://github.com/pytorch/executorch/issues/11086"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Wrong values when nonzero's output feeds a reduction: its buffer is re-read column-major"
DESCRIBE = """
`torch.nonzero(x > 0).sum(dim=1).float()` for x = [[1,-1,2],[-3,4,5]] is [0, 2, 2, 3] in
eager and [1, 1, 1, 4] on the ExecuTorch runtime. `nonzero`'s output is planned with dim
order (1, 0) (ATen's stride (1, n)) while the portable `nonzero.out` kernel writes it
row-major; the `_to_dim_order_copy` to dim order (0, 1) placed before the reduction then
reads the buffer column-major, so row i becomes (flat[i], flat[i + n]) of the row-major
result. No error is raised; the values are silently wrong. Same root cause as the
nonzero dim-order report (#11086 class).
"""
RELATED = ("https://github.com/pytorch/executorch/pull/20878",)
VARIANT_OF = "executorch_nonzero_dim_order"
# Searched again on 2026-12-06 (issue and code indexes): "(shared with
# executorch_nonzero_dim_order; no separate queries)". Found:
# https://github.com/pytorch/executorch/issues/11086.
