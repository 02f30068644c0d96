"""Known upstream bug (ExecuTorch 1.5.1 runtime): the portable `var.correction_out` kernel
computes a float16 or bfloat16 variance in that dtype, so it loses what eager keeps.

`torch.var(x, dim=(0, 1, 2), correction=0)` of a (2, 16, 16) bfloat16 tensor of values
5 + k/3 (k in -8..8; float64 variance 2.680) is 2.672 in eager (ATen accumulates the mean
and the squared deviations of a reduced-precision tensor in float32 and rounds once) and
3.219 in the ExecuTorch runtime, whose running sums are bfloat16: past 256 a bfloat16
sum moves in steps of 2 and more, and the mean of values around 5 goes wrong, which every
deviation then carries. In float16 the same input gives 2.668 against eager's 2.682
(0.5 %), past the float16 tolerance of the result oracle (rtol 1e-3).
float32 agrees. The edge and ExecuTorch programs hold one `aten.var.correction` node in
the input's dtype (no cast, to_edge not involved): the precision is lost in the kernel.

Found by the fault benchmark's EXIR baseline night (seed 2, 2026-12-03): a float16
`torch.var` over all dims of `x0 @ x0.transpose(-2, -1)` (6.113 against eager's 6.133).
"""

import torch


def program(x):
    return (torch.var(x, dim=(0, 1, 2), correction=0),)


def calls():
    x = ((torch.arange(512) % 17 - 8) / 3.0 + 5).reshape(2, 16, 16)
    return [(x.to(torch.bfloat16),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a value outside
# a half-precision tolerance (fuzz/oracles/results.py prints the output dtype's tolerance:
# float16 1e-3, bfloat16 1.6e-2) in a program whose edge graph makes a float16 or
# bfloat16 variance (the ops fact's dtype tag). A float32 variance is not matched.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=(0\.001, atol=0\.001|0\.016, atol=0\.01)\)",
        "facts": {"ops": "aten.var.correction:*float16"},
    },
)
# Searched the issue index for "executorch portable var kernel half bfloat16 accumulate
# precision var.correction std": no report of var. pytorch/executorch#20090 ("portable:
# accumulate in fp32 for Half/BFloat16 in softmax, log_softmax, mean, and sum", merged
# 2026-06-08) and #16727 (fp32 accumulation in the norms) fix the same mistake in other
# portable kernels; neither touches var.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable var.correction_out accumulates Half/BFloat16 variance in the input dtype"
DESCRIBE = """
`torch.var(x, dim=(0, 1, 2), correction=0)` of a (2, 16, 16) bfloat16 tensor with values
5 + k/3 (k in -8..8; exact variance 2.680) is 2.672 in eager, which accumulates in
float32, but 3.219 in the ExecuTorch runtime; in float16 the same input gives 2.668 vs
eager's 2.682. `compute_variance` in kernels/portable/cpu/op_var.cpp keeps both running
sums (`sum` for the mean and `sum2` for the squared deviations) in `CTYPE_OUT`, so a
bfloat16 sum past 256 moves in steps of 2 and the mean goes wrong. The edge program
holds a single `aten.var.correction` node in the input dtype, so the loss is in the
kernel. #20090 fixed the same pattern for softmax/log_softmax/mean/sum and #16727 for
the norms, but `var` (and the newer `var_mean.correction_out` in op_var_mean.cpp, same
two-pass code) still accumulate in the input dtype; float32 is fine.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/20090",
    "https://github.com/pytorch/executorch/pull/16727",
    "https://github.com/pytorch/executorch/pull/18775",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch portable var kernel
# half bfloat16 accumulate precision var.correction std"; "git log on
# kernels/portable/cpu/op_var.cpp (snapshot)". Found: no report of this bug.
