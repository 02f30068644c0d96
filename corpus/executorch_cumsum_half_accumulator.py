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
# half precision": no report of cumsum. https://github.com/pytorch/executorch/pull/20089
# ("portable: accumulate in fp32 for Half/BFloat16 in softmax, log_softmax, mean, and
# sum", closed unmerged) is the same mistake in four other portable kernels; it does not
# touch cumsum.
UPSTREAM = None
CLASS = "bug"
