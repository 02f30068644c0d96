"""Known upstream bug (ExecuTorch 1.5.1 runtime): the portable `native_layer_norm` and
`native_group_norm` kernels compute a float64 input's mean and variance in float32, as
E[x^2] - E[x]^2, so a float64 normalization is only as exact as float32 allows, and less
where the values sit far from zero.

`torch.group_norm(x, 1)` of a (2, 3, 40) float64 tensor of standard normal values plus
1000 is -2.244 at [0, 0, 0] in eager and -2.060 in the ExecuTorch runtime; `torch.layer_norm`
over the last dim of the same input, -2.123 against -2.213. Eager computes the statistics
in float64 (ATen's RowwiseMoments). The kernels (kernels/portable/cpu/op_native_layer_norm.cpp,
op_native_group_norm.cpp) take the sum and the sum of squares with `reduce_add` and
`vec_powerf` of kernels/portable/cpu/vec_ops.h, which accumulate in a `float` whatever the
element type, then form the variance as sq_sum / n - mean^2: squares near 1e6 in float32
cancel to a variance that is off by several percent. For standard normal values the
error is smaller, about 1e-7 relative, still past the float64 tolerance of the result
oracle (rtol 1e-7). The edge and ExecuTorch programs hold one `native_layer_norm` /
`native_group_norm` node in float64: the precision is lost in the kernel.

Found by the fault benchmark's EXIR baseline night (seed 1, 2026-12-03, ninth session):
`torch.group_norm(v, 1, eps=1e-05)` of a float64 `scatter_add` result, 0.4328927 against
eager's 0.4328929.
"""

import torch


def program(x):
    return (torch.group_norm(x, 1, eps=1e-05),)


def calls():
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(2, 3, 40, dtype=torch.float64, generator=g) + 1000.0,)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a value outside
# the float64 tolerance (fuzz/oracles/results.py prints it: rtol 1e-07) in a program whose
# edge graph makes a float64 layer norm or group norm (the ops fact's dtype tag), one
# form per op. Not claimed, a stated gap: float32 inputs far from zero, where the same
# float32 cancellation may differ from eager's float32 statistics past the float32
# tolerance; the generator's inputs are standard normal, and a pattern for it would
# claim every float32 wrong result of a program with a norm.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {"ops": "aten.native_group_norm.default:float64"},
    },
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {"ops": "aten.native_layer_norm.default:float64"},
    },
)
# Searched the issue index for "executorch portable layer_norm group_norm double
# precision float accumulator vec_powerf reduce_add variance" and "executorch
# native_layer_norm numerical mismatch eager large values catastrophic cancellation": no
# report of float64. pytorch/executorch#16727 ("Use fp32 accumulation in
# portable/optimized norms", merged 2026-01-21) made float16 accumulate in float32 and
# says the portable accumulation "was already in float", which is this bug for float64;
# pytorch/pytorch#51102 is the same cancellation in an old ATen LayerNorm.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable layer_norm and group_norm compute float64 mean/variance in float32"
DESCRIBE = """
The portable `native_layer_norm` and `native_group_norm` kernels
(kernels/portable/cpu/op_native_layer_norm.cpp, op_native_group_norm.cpp) take the sum
and sum of squares with `reduce_add` / `vec_powerf` from kernels/portable/cpu/vec_ops.h,
which accumulate in `float` whatever the element type, and then form the variance as
sq_sum / n - mean^2. A float64 normalization is therefore only float32-accurate, and
much worse for values far from zero: `torch.group_norm(x, 1)` of a (2, 3, 40) float64
tensor of standard normal values plus 1000 is -2.244 at [0, 0, 0] in eager and -2.060 on
the runtime (layer_norm over the last dim: -2.123 vs -2.213). ATen computes float64
statistics in float64 (RowwiseMoments). #16727 moved Half/BFloat16 to float
accumulation; Double needs a double accumulator (and a centred or Welford variance would
avoid the cancellation).
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/16727",
    "https://github.com/pytorch/pytorch/issues/51102",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch portable layer_norm
# group_norm double precision accumulate float variance"; "executorch native_layer_norm
# float64 numerical mismatch large mean catastrophic cancellation E[x^2]". Found: no
# report of this bug.
