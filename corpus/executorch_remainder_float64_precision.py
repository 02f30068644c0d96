"""Known upstream bug (ExecuTorch 1.5.1 runtime): float64 `remainder` is computed with
float32 precision: the portable kernel keeps `std::fmod(a, b)` in a `float`.

`torch.remainder(x, 1e8)` of a float64 `x = [-99999999.7]` is 0.3 (0.29999999701976776)
in eager; the ExecuTorch runtime returns 0.0. The edge program is right (one
`aten.remainder.Scalar` node on float64, as exported, the divisor a double Scalar); the
fault is in the portable kernel. kernels/portable/cpu/op_remainder.cpp computes every
element with `utils::remainder_override(val_a, val_b)` in the compute type (double here;
line 70 in `remainder_Tensor_out`, the Scalar overload further down), and the floating
overload of it in kernels/portable/cpu/util/math_util.h (line 206 on v1.4.1 and on main)
is `float rem = std::fmod(a, b);`: the exact double fmod, -99999999.7, is rounded to
float32 (-1e8), the sign correction adds b (1e8) to it, and the double result is 0.0.
Every float64 remainder keeps only float32's 24 bits (`remainder(-0.1, 1.0)` is
0.8999999761581421, not 0.9); in programs this shows where the result is small next to
the dividend or the tolerance is tight. The `float` came with the sign correction
(pytorch/executorch#90) and moved into math_util.h with pytorch/executorch#1927. Right:
float32 remainder (its own precision), float64 `torch.fmod` (its kernel keeps the
double). The integral overload beside it is a different bug (executorch_remainder_int_sign:
the sign of `%`). Found by a helper probing the math op family on the EXIR lane, next to
that integer bug.
"""

import torch


def program(x):
    return (torch.remainder(x, 1e8),)


def calls():
    return [(torch.tensor([-99999999.7], dtype=torch.float64),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a float64 value
# outside the float64 tolerance (only float64 prints rtol=1e-07: fuzz/oracles/results.py)
# in a program with either remainder overload (`a % b` and `torch.remainder` of two
# tensors are remainder.Tensor, a number divisor remainder.Scalar). The integer sign bug
# (executorch_remainder_int_sign) shows as an exact-dtype mismatch and is not matched. The
# remainder node's dtype, not an input's ("<op>:<dtype>", fuzz/facts.py): a float64
# operand made inside the program (`x.double() % 3`) shows it too.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(rtol=1e-07, atol=1e-07\)",
        # float64 only: the float32 rounding of fmod is invisible in float32 results.
        "facts": {"ops": "aten.remainder.*:float64"},
    },
)
# Searched the issue index for "executorch remainder_override float rem fmod double
# precision", "executorch remainder double wrong result portable kernel" and "to_edge
# float64 tensor add python float scalar result differs from eager float32 rounding": no
# upstream report found (the nearest, pytorch/executorch#90, is the sign correction that
# introduced the `float`).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable remainder kernel computes float64 remainder in float32 precision"
DESCRIBE = """
For a float64 tensor, `torch.remainder(x, 1e8)` with `x = [-99999999.7]` returns 0.0
from the ExecuTorch runtime; eager returns 0.29999999701976776. The edge program is
right (one `aten.remainder.Scalar` node on float64); the loss happens in the portable
kernel. `kernels/portable/cpu/op_remainder.cpp` calls `utils::remainder_override(val_a,
val_b)` with `CTYPE = double` (line 70 for `remainder.Tensor_out`, line 138 for
`remainder.Scalar_out`), and the floating overload in
`kernels/portable/cpu/util/math_util.h` (line 206 on v1.4.1 and on main) stores the
result as `float rem = std::fmod(a, b);`: the exact double fmod (-99999999.7) is rounded
to float32 (-1e8), then the sign correction adds `b` and gives 0.0. Every float64
remainder therefore keeps only 24 bits of mantissa (`remainder(-0.1, 1.0)` gives
0.8999999761581421, not 0.9). Declaring `rem` as `CTYPE` would fix it; float32 remainder
and the float64 `fmod` kernel are not affected.
"""
# Searched again on 2026-12-06 (issue and code indexes): "executorch remainder float64
# precision fmod float portable kernel"; "executorch op_remainder remainder_override
# float rem double"; "remainder_override math_util.h (code)"; "executorch remainder
# negative integer wrong sign portable kernel". Found: no report of this bug.
