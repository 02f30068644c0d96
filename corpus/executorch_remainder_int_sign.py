"""Known upstream bug (ExecuTorch 1.5.1 runtime): integer `remainder` takes the sign of the
dividend (C's `%`) instead of the divisor's, so it is wrong whenever the signs differ.

`torch.remainder(a, b)` of int64 `a = [-4, 3]`, `b = [3, -2]` is `[2, -1]` in eager (a
Python modulus: the result has the sign of `b`); the ExecuTorch runtime returns `[-1, 1]`,
the truncated remainder that `torch.fmod` gives. The edge program is right (one
`aten.remainder.Tensor` node on int64, as exported); the fault is in the portable kernel.
kernels/portable/cpu/op_remainder.cpp computes every element with
`utils::remainder_override(val_a, val_b)` (line 70 in `remainder_Tensor_out`, line 138
in `remainder_Scalar_out`), and kernels/portable/cpu/util/math_util.h has two overloads
of it (same lines on v1.4.1 and on main): the floating-point one (lines 201-211) takes
`std::fmod` and adds `b` when exactly one of `a`, `b` is negative and the result is not
zero, as the comment above it (lines 191-199) says ATen requires; the integral one (lines
213-218) is `return a % b;`, C's truncated remainder, without that correction (so since
math_util.h was added by pytorch/executorch#1927). Every integer dtype is affected (int32
too), both overloads (`x % -3` and `torch.remainder(x, 3)` with a negative x are
`remainder.Scalar`, `a % b` is `remainder.Tensor`), broadcast or not. Right at the same
sign corners: float32 remainder, int64 `torch.fmod` (Tensor and Scalar: it is meant to
truncate), int64 floor division (`torch.div(..., rounding_mode="floor")` and `//`, which
use the corrected `floor_divide`) and trunc division. (float64 remainder has the right
sign but float32 precision, another fault of the floating overload: it keeps the fmod in
a `float`; `remainder(-99999999.7, 1e8)` is 0.3 in eager, 0.0 at runtime:
executorch_remainder_float64_precision.) Found by a helper probing the math op family
(fuzz/ops/math.py: remainder, remainder_number, mod_number) on the EXIR lane.

A remainder used as an index shows the bug otherwise (the other MATCHES forms): a
negative one, where eager's is in range, makes the indexing kernels that check their
indices (embedding, index_select, gather and take_along_dim, scatter and scatter_add)
fail their index check, `method->execute() failed with error 0x12`; with a negative
divisor eager's index is the negative one, and eager raises where the runtime returns.
"""

import torch


def program(a, b):
    return (torch.remainder(a, b),)


def calls():
    return [(torch.tensor([-4, 3]), torch.tensor([3, -2]))]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): an integer
# (exact-dtype) result that differs, in a program with either remainder overload (the
# Tensor form for `torch.remainder(a, b)` and `a % b`, the Scalar form for a number
# divisor) that makes an integer tensor (the "<op>:<dtype>" ops fact, fuzz/facts.py).
# Float remainder is right, so a divergence with a tolerance is not matched, nor one of a
# program whose remainder is float (without the dtype the pattern claimed 20 % of generated
# EXIR programs: tests/stacks/core/test_pattern_specificity.py). The dtype is the node's, not an
# input's: the nightly's `torch.remainder(topk_indices, -(n + 1))` of float inputs showed
# this bug and was reported as new while the pattern asked for an integer input.
# The other forms: a remainder used as an index. The generator once built embedding
# indices as `torch.remainder(idx.long(), n)` (fuzz/ops/linalg.py, `abs` since): a
# negative dividend made a negative index, the runtime's embedding kernel rejected it, an
# exir.crash at call that no form matched, so it was reported as new although eager's
# index is in range. The kernels that check their indices crash alike: embedding,
# index_select, gather (take_along_dim), scatter and scatter_add, "execute() failed with
# error 0x12" with the runtime's log (fuzz/backends/exir/runtime.py adds it) saying which
# check failed: "[op_embedding.cpp:52] Check failed (indices_ptr[i] >= 0)", and
# index_util.cpp's "Check failed (index_ptr[i] >= 0 && ...)" or "(index_data[i] >= 0 &&
# ...)". Those that wrap a negative index (`x[i]`, index_put, index_add, index_copy,
# index_fill) and scatter_reduce do not crash; with a divisor other than the indexed size
# a float result then differs with a tolerance, which no form claims (it would claim
# every float wrong result of the generator's `x[torch.remainder(torch.arange(n),
# x.shape[0])]`). A negative divisor does it the other way round: eager's index is
# negative and eager raises ("index out of range in self", "index -1 is out of bounds"),
# the runtime's is not and it returns a result (the third form). An index out of range
# made otherwise (`x - 3`) is no divergence: eager raises too. And a wrong integer
# remainder that feeds float ops shows as a float result that differs with a tolerance
# (a fault-benchmark baseline night: `rsqrt(remainder(x0, ...).abs() + 1)`): the second
# form, by what the runtime computed, not by the program's ops: the exported program run
# with integer remainder as C's `%` gives the runtime's outputs on that call
# (fuzz/backends/exir/emulate.py, fact `matches_eager_with`).
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ \(exact dtype\)",
        "facts": {"ops": "aten.remainder.*:int*"},
    },
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "facts": {"matches_eager_with": "int-remainder-truncated"},
    },
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": (
            r"failed with error 0x12 \(runtime log: .*"
            r"Check failed \((?:indices_ptr|index_ptr|index_data)\[i\] >= 0"
        ),
        "facts": {"ops": "aten.remainder.*:int*"},
    },
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": (
            r"eager raised '(?:IndexError: index out of range in self"
            r"|RuntimeError: index -\d+ is out of bounds for dimension)[^']*', "
            r"the runtime returned a result"
        ),
        "facts": {"ops": "aten.remainder.*:int*"},
    },
)
# Searched the issue index for "executorch remainder negative integer wrong sign",
# "portable kernel remainder_override integral a % b truncated modulo torch.remainder",
# "ExecuTorch aten.remainder int64 result differs from eager modulo %" and "executorch
# op_remainder portable remainder.Tensor_out remainder.Scalar_out": no upstream report
# found (the nearest, pytorch/executorch#18401, is the Arm backend's quantized remainder).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable remainder kernel gives the dividend's sign for integer tensors"
DESCRIBE = """
For int64 `a = [-4, 3]`, `b = [3, -2]`, `torch.remainder(a, b)` returns `[2, -1]` in
eager (the result takes the sign of the divisor) but `[-1, 1]` from the ExecuTorch
runtime, which is what `torch.fmod` gives. The edge program is right (one
`aten.remainder.Tensor` node on int64). `kernels/portable/cpu/op_remainder.cpp` calls
`utils::remainder_override` (line 70 in `remainder_Tensor_out`, line 138 in
`remainder_Scalar_out`); in `kernels/portable/cpu/util/math_util.h` the floating-point
overload (lines 201-211) applies the sign correction that the comment above it says ATen
requires, but the integral overload (lines 213-218) is just `return a % b;`, C's
truncated remainder. Every signed integer dtype and both the Tensor and Scalar overloads
are affected whenever the operand signs differ; int `fmod` and int floor division
(`floor_divide`, which does correct the sign) are right. A negative remainder used as an
index also makes `embedding`/`index_select`/`gather` fail their index check at runtime
where eager's index is in range.
"""
# Searched again on 2026-12-06 (issue and code indexes): "executorch remainder negative
# integer wrong sign portable kernel"; "ExecuTorch torch.remainder int64 result differs
# from PyTorch modulo sign of divisor"; "portable kernel remainder integral a % b C
# truncated modulo ATen python modulus executorch"; "remainder_override math_util.h
# (code)". Found: no report of this bug.
