"""Known upstream bug (ExecuTorch 1.5.1 to_edge): a Python float operand of a float64
op is made a float32 constant tensor, so the op computes with the number rounded to float.

`x - 10.1` of a float64 `x = [10.1]` is 0.0 in eager; the ExecuTorch runtime returns
-3.8146972691777137e-07 (10.1 - float32(10.1)). torch.export keeps the number as a
double argument of `aten.sub.Tensor`; to_edge's ScalarToTensorPass
(exir/passes/scalar_to_tensor_pass.py line 32, the same on main) replaces every
int/float/bool passed where the schema wants a Tensor with `torch.tensor(value)`, which
for a float has the default dtype, float32: the double is rounded there. The mixed-dtype
pass then casts that constant to float64 (`dim_order_ops._to_dim_order_copy` of a
`_lifted_tensor_constant` placeholder in the edge program), but the digits are gone, and
the .pte stores the float32 tensor. The edge program departs from the ATen program at
the op itself (its `origin` fact), the runtime kernels are right. Affected: the Tensor
overloads a number reaches after export, `add`, `sub` (and `rsub`, which becomes `sub`),
`mul`, `div` and `div` with a rounding mode (`x // 10.1` is 0.0 at runtime for x = 10.1,
1.0 in eager). The error is the number's float32 rounding, at most 6e-8 relative, so a
lone `x * c` stays inside the float64 tolerance; it shows when a result cancels
(`x - c`), crosses an integer (`//`) or is amplified later (the campaign met
`torch.sin(x * math.exp(5 / 4))`, 8e-7 relative). Right: the Scalar overloads (`remainder`, `fmod`,
`pow`, comparisons, `clamp`), whose number the runtime keeps as a double, `where` with a
number branch (export makes it a float64 `scalar_tensor`), and float32 programs. Found
by a nightly campaign (run with a fault plugin, reproduced on the stock stacks).
"""

import torch


def program(x):
    return (x - 10.1,)


def calls():
    return [(torch.tensor([10.1], dtype=torch.float64),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a float64 value
# outside the float64 tolerance (only float64 prints rtol=1e-07) on a float64 input, in a
# program whose edge graph has one of the ops the pass feeds a constant to and a cast (the
# float32 constant made float64), where the edge program itself already computes other
# values than the ATen program (an `origin` fact: at the op, or at a later op that
# amplifies the difference). A runtime kernel fault leaves no origin (the edge program is
# right), so float64 kernel bugs (executorch_opt_sum_float_accumulator,
# executorch_remainder_float64_precision) are not matched. The bug is to_edge's, so it
# shows in the edge program too: as exir.edge-result where the runtime has no kernel for
# another op of the program (a sort, a cumprod) and the lane compares the edge program's
# result instead (tests/stacks/core/test_pattern_variants.py).
MATCHES = (
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {
            "ops": ["aten.add.Tensor", "dim_order_ops._to_dim_order_copy.default"],
            "dtypes": "float64",
            "origin": "*:values",
        },
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {
            "ops": ["aten.sub.Tensor", "dim_order_ops._to_dim_order_copy.default"],
            "dtypes": "float64",
            "origin": "*:values",
        },
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {
            "ops": ["aten.mul.Tensor", "dim_order_ops._to_dim_order_copy.default"],
            "dtypes": "float64",
            "origin": "*:values",
        },
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {
            "ops": ["aten.div.Tensor", "dim_order_ops._to_dim_order_copy.default"],
            "dtypes": "float64",
            "origin": "*:values",
        },
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        "facts": {
            "ops": ["aten.div.Tensor_mode", "dim_order_ops._to_dim_order_copy.default"],
            "dtypes": "float64",
            "origin": "*:values",
        },
    },
)
# Searched the issue index for "ScalarToTensorPass torch.tensor float32 precision double
# scalar", "executorch float64 multiply by python float constant loses precision to_edge",
# "executorch lifted tensor constant scalar dtype float32 instead of float64 double" and
# "to_edge float64 tensor add python float scalar result differs from eager float32
# rounding": no upstream report found (the nearest, pytorch/executorch#22062, is the
# XNNPACK quantizer's `_convert_scalars_to_attrs` lifting integer scalars as float32).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "ScalarToTensorPass turns a Python float into a float32 constant, losing float64 precision"
DESCRIBE = """
`x - 10.1` with a float64 `x = [10.1]` is 0.0 in eager; the ExecuTorch runtime returns
-3.8146972691777137e-07 (10.1 - float32(10.1)). `torch.export` keeps 10.1 as a double
argument of `aten.sub.Tensor`, but `ScalarToTensorPass`
(exir/passes/scalar_to_tensor_pass.py line 32, same on main) replaces every
int/float/bool passed where the schema wants a Tensor with `torch.tensor(value)`, which
for a float uses the default dtype, float32. `RemoveMixedTypeOperators` then casts that
constant to float64, but the digits are already gone, and the .pte stores the float32
tensor. Affected: the Tensor overloads a number reaches after export (`add`,
`sub`/`rsub`, `mul`, `div`, `div` with rounding mode: `x // 10.1` gives 0.0 at runtime
vs 1.0 in eager). Scalar overloads (`remainder`, `fmod`, `pow`, comparisons, `clamp`)
keep the double and are right. Creating the constant with the node's computation dtype
(or float64 for floats / int64 for ints) would avoid it.
"""
RELATED = ("https://github.com/pytorch/executorch/issues/22062",)
# Searched again on 2026-12-06 (issue and code indexes): "ScalarToTensorPass
# torch.tensor float32 default dtype double scalar precision loss"; "executorch to_edge
# float64 model python float constant lifted tensor constant float32 wrong result
# double"; "RemoveMixedTypeOperators zero-dim tensor scalar promotion bfloat16 becomes
# float32 executorch". Found: no report of this bug.
