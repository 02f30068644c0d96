"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): a contiguous tensor whose last
dim is data-dependent cannot be lowered: `dim_order_from_stride` guards on `u < 1`.

`torch.nonzero(x > 0)` has shape (u, 1) and strides (1, u); its `.permute(1, 0)` becomes a
contiguous `permute_copy` of shape (1, u), strides (u, 1). `dim_order_from_stride`
(executorch/exir/tensor.py) sorts the strides with a key whose `__lt__` answers
`1 < u` through its divisibility rule but for `u < 1` falls through to the plain
comparison, a data-dependent guard: to_executorch raises GuardOnDataDependentSymNode
"Could not guard on data-dependent expression u17 < 1" (from dim_order_from_stride).
Which comparison the sort makes depends on the order of the strides, so (u, 1) fails
where (1, u) works; `torch.stack([v, v])` of an unbacked-size `v` fails alike. Eager
returns [[0, 2]] for x = [1, -1, 2]. Found by the fixes-on EXIR campaign; our fixes do
not touch it.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0).permute(1, 0),)


def calls():
    return [(torch.tensor([1.0, -1.0, 2.0]),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"Could not guard on data-dependent expression(?s:.*)in dim_order_from_stride",
    },
)
# Searched the issue index for "dim_order_from_stride GuardOnDataDependentSymNode unbacked
# stride": no report; the comparison came with pytorch/executorch#19516 (removing
# guard_size_oblivious from the stride sort).
UPSTREAM = None
CLASS = "bug"
