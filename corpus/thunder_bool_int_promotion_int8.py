"""Known upstream bug (Thunder 0.2.6, any cache): a bool tensor times a Python int is traced int8.

PyTorch gives `bool_tensor * 3` the default integer dtype, int64 (a Python int is of a
higher category than bool). Thunder's exact type-promotion table
(thunder/core/utils.py, `_elementwise_exact_promotion_table`) maps bool8 with `int` to
the weak `int8_`, so the trace records `v = ltorch.mul(x, 3)  # v: "cpu i8[3]"`. The
torch executor still runs `torch.mul`, so `v` itself comes back int64 and most programs
never notice; an op that materialises the recorded dtype does: `torch.empty_like(v)` is
traced as `prims.empty(..., dtype=int8)`, so `torch.empty_like(v).copy_(v)` returns int8
where eager returns int64 (thunder.wrong-result at call[0]: "output 0: dtype torch.int8,
expected torch.int64"; the default cache and the stock stacks give the same). Values that
do not fit int8 wrap (`x * 200` copies as -56). `x.to(v.dtype)` is int8 too;
`zeros_like`, `new_empty`, `new_ones` and `v + 1` run as torch calls on the runtime
tensor and come back int64. The same table entry is where
corpus/thunder_masked_fill_bool_int.py's type test slips, but that bug is masked_fill's
own test (a fix of the table leaves it: bool with int would promote to int64, still not
the value's type), and this one needs no masked_fill. Every stored version of
thunder/core/utils.py in the code index (find_string of the b8_ row, 4 versions) has the
same row. Found by a 120 s Thunder nightly (seed 1, the fault benchmark's baseline, with
the experimental generator of 8666a76): `torch.empty_like(v4).copy_(v4 * 2)` after
`v2 = x0 * x1` of a bool tensor and an int number input.
"""

import torch


def program(x, n):
    v = x * n
    return (torch.empty_like(v).copy_(v),)


def calls():
    return [(torch.tensor([True, False, True]), 3)]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): an int8 result
# where eager has int64. No op of the catalogue makes an int8 tensor (fuzz/ops/dtypes.py
# has none), so int8 comes only from this promotion. A gap: when a later op casts the int8
# tensor back (e.g. to float) only the values differ, which this pattern does not claim.
MATCHES = (
    {
        "kind": "thunder.wrong-result",
        "details": r"output \d+: dtype torch\.int8, expected torch\.int64",
    },
)
# Searched the issue index for "lightning-thunder bool tensor multiplied by python int dtype
# int8 instead of int64 type promotion" and "thunder boolean tensor python int scalar
# promotes int8 weak dtype empty_like trace dtype mismatch": the nearest are
# Lightning-AI/lightning-thunder#1239 (div by a float64 scalar tensor gives float64, open)
# and #1952 (cumsum of bool should be int64, closed); neither is bool with a Python int.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "A bool tensor times a Python int is typed int8 in the trace; PyTorch gives int64"
DESCRIBE = """
PyTorch gives `bool_tensor * 3` the default integer dtype, int64, because a Python int
is of a higher category than bool. Thunder's exact promotion table
(`_elementwise_exact_promotion_table`, thunder/core/utils.py:294-310, same on main) maps
a bool tensor with `int` to the weak `int8_`, so the trace records `ltorch.mul(x, 3)` as
`i8[3]`. The torch executor still runs `torch.mul`, so that value itself is int64 at
runtime, but any op that uses the recorded dtype gets int8. For example, `v = x * n;
torch.empty_like(v).copy_(v)` with `x = torch.tensor([True, False, True])` and `n = 3`
returns an int8 tensor where eager returns int64, and values that do not fit int8 wrap
(`x * 200` becomes -56). `x.to(v.dtype)` is int8 as well. The b8/b8_ rows with the `int`
column should promote to int64 to follow torch's result_type.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1239",
    "https://github.com/Lightning-AI/lightning-thunder/issues/1952",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder type promotion bool
# tensor python int scalar result dtype int8 should be int64"; "git: git log -L
# _elementwise_exact_promotion_table thunder/core/utils.py (unchanged since 2024-03)".
# Found: no report of this bug.
