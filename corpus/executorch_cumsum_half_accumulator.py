"""Known upstream bug (ExecuTorch 1.5.1 runtime): the portable `cumsum.out` kernel
accumulates a float16 or bfloat16 cumulative sum in that dtype, so it loses what eager
keeps. `torch.cumsum(torch.ones(3000, dtype=torch.float16), 0)` ends at 3000.0 in eager,
which accumulates in float32 and rounds each output once; the ExecuTorch runtime stops at
2048.0, where adding 1.0 to a float16 running sum no longer changes it. On smaller
values the error is a few units in the last place per step and grows along the dim, past
the float16 tolerance of the result oracle (rtol 1e-3) after some tens of elements, and an
`exp` after the cumsum multiplies it. The edge and ExecuTorch programs are float16
throughout (no cast, to_edge not involved): the precision is lost in the kernel.
kernels/portable/cpu/op_cumsum.cpp's `cumsum_tensors` is templated on CTYPE_OUT, the
output element type, and adds each input element to the previous output element in it.
Found by the fault benchmark's EXIR baseline night on 2026-12-02 (four generated programs
of `torch.cumsum` of a float16 input, followed by `exp` or `logsumexp` and `softmax`).
"""

import torch


def program(x):
    return (torch.cumsum(x, 0),)


def calls():
    return [(torch.ones(3000, dtype=torch.float16),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a value outside
# a half-precision tolerance (fuzz/oracles/results.py prints the output dtype's tolerance:
# float16 1e-3, bfloat16 1.6e-2) in a program whose edge graph holds a cumsum. A float32
# cumsum is exact enough and is not matched.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=(0\.001, atol=0\.001|0\.016, atol=0\.01)\)",
        "facts": {"ops": "aten.cumsum.default"},
    },
)
# Searched the issue index for "executorch portable cumsum half float16 accumulates in
# half precision": no report of cumsum. pytorch/executorch#20090 (merged 2026-06-18, in
# v1.4.0 and so in 1.5.1) fixed the sibling kernels (softmax, log_softmax, mean, sum) and
# left op_cumsum.cpp out; https://github.com/pytorch/executorch/pull/20089
# ("portable: accumulate in fp32 for Half/BFloat16 in softmax, log_softmax, mean, and
# sum", closed unmerged) is the same mistake in four other portable kernels; it does not
# touch cumsum.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable cumsum accumulates float16/bfloat16 in the output dtype and loses precision"
DESCRIBE = """
`torch.cumsum(torch.ones(3000, dtype=torch.float16), 0)` ends at 3000.0 in eager, which
accumulates in float32 and rounds each output once, but at 2048.0 in the ExecuTorch
runtime, where adding 1.0 to a float16 running sum no longer changes it. On ordinary
data the error grows along the dim and passes float16 tolerance after a few tens of
elements. In kernels/portable/cpu/op_cumsum.cpp, `cumsum_tensors` is templated on
`CTYPE_OUT` and computes each element as `load_self(in[j]) + out[j - 1]` in that type,
so a Half/BFloat16 output is also the accumulator. #20090 fixed exactly this for
softmax, log_softmax, mean and sum (accumulate in float for Half/BFloat16) but did not
touch cumsum. Carrying a float running sum per output element (e.g.
`utils::compute_dtype`/float for reduced-precision types) and casting once on store
would match eager.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/20090",
    "https://github.com/pytorch/executorch/pull/20089",
    "https://github.com/pytorch/executorch/pull/19117",
)
# Searched again on 2026-12-06 (issue and code indexes): "portable accumulate in fp32
# for Half BFloat16 softmax log_softmax mean sum"; "executorch cumsum float16 half
# precision accumulation wrong result"; "PR 20090 op_cumsum accumulate fp32 Half
# BFloat16 portable kernels files changed"; "executorch op_cumsum.cpp bfloat16 cumsum
# precision portable kernel". Found: no report of this bug.
