"""Known upstream bug (ExecuTorch 1.5.1 runtime): the optimized `sum.IntList_out` kernel
accumulates every dtype in float32, so a float64 sum over one dim has float32 precision.

`x.sum(dim=0)` of a float64 tensor `[1e8, 1.0, -1e8]` is 1.0 in eager; the ExecuTorch
runtime returns 0.0. The edge and ExecuTorch programs are float64 throughout (no float32
tensor, no cast: to_edge is not involved); the precision is lost in the kernel. The Python
runtime's kernel library registers `torch::executor::opt_sum_dim_out`
(kernels/optimized/cpu/op_sum.cpp, added by pytorch/executorch#19119) for
`sum.IntList_out`. Its fast path, taken for one reduced dim of a contiguous input whose
dtype equals the output's, dispatches with ET_SWITCH_REALHBBF16_TYPES (so double and the
integer types too) but `sum_innermost` / `sum_strided` always accumulate in
`at::vec::Vectorized<float>` / `float` and cast back: written for Half/BFloat16/float, it
rounds every float64 element and partial sum to float32. Integer sums are wrong the same
way (int64 `[2**24, 1]` sums to 16777216). `x.sum()` and a sum over two dims fall back to
the portable kernel, which accumulates in the output dtype, and are exact. Found by the
fixes-on EXIR campaign (generated programs `(x1 * 3 + 1.0).sum(dim=0, keepdim=True)` with
a float64 x1, agreeing with eager only to float32 precision).
"""

import torch


def program(x):
    return (x.sum(dim=0, keepdim=True),)


def calls():
    return [(torch.tensor([1e8, 1.0, -1e8], dtype=torch.float64),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a float64 value
# outside the float64 tolerance (fuzz/oracles/results.py prints it in the details) in a
# program that sums a float64 tensor over one dim (the sum node's dtype, "<op>:<dtype>" in
# fuzz/facts.py: a float64 made inside the program shows it too). Integer sums need
# partial sums past 2**24 to show it and are not matched, so an exact-dtype mismatch stays
# a new divergence.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {"ops": "aten.sum.dim_IntList:float64"},
    },
)
# Searched the issue index for "portable sum.IntList_out float64 double accumulates in
# float precision loss", "executorch optimized opt_sum_dim_out double int64 accumulates in
# float Vectorized<float>", "optimized sum.IntList_out wrong result int64 float64
# precision regression fp32 accumulation" and "executorch sum dim int64 result wrong
# 16777217 large integer": no upstream report found; the kernel came with
# https://github.com/pytorch/executorch/pull/19119 and is unchanged on main.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Optimized sum.IntList_out accumulates float64 and integer sums in float32"
DESCRIBE = """
`x.sum(dim=0)` of float64 `[1e8, 1.0, -1e8]` is 1.0 in eager and 0.0 on the ExecuTorch
runtime; int64 `[2**24, 1]` sums to 16777216. The optimized `opt_sum_dim_out`
(kernels/optimized/cpu/op_sum.cpp, added in #19119) dispatches its single-dim fast path
with `ET_SWITCH_REALHBBF16_TYPES`, so Double and the integer types take it, but
`sum_innermost` / `sum_strided` always accumulate in `at::vec::Vectorized<float>` /
`float` and cast back; the code comment says the float accumulator is meant for
fp16/bf16/fp32. `x.sum()` and multi-dim sums fall back to the portable kernel and are
exact. Restricting the fast path to Float/Half/BFloat16 (or accumulating in the op-math
type) would fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/19119",
    "https://github.com/pytorch/executorch/pull/18789",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch optimized
# sum.IntList_out kernel opt_sum_dim_out Vectorized float accumulation"; "executorch sum
# dim double int64 wrong result precision optimized kernel regression"; "code: read
# kernels/optimized/cpu/op_sum.cpp (stored main copy)". Found: no report of this bug.
