"""Known upstream bug (ExecuTorch 1.5.1 runtime): the prim ops `mod` and `floordiv` of
symbolic integers divide without checking the divisor, so a zero size kills the process
(SIGFPE) instead of returning an error.

`y[3 % u]` with `u = x.nonzero().shape[0]` and `torch._check(u > 0)`: for `x = zeros(3)`
eager raises (the check fails: RuntimeError); on the ExecuTorch runtime the process dies
with SIGFPE. Export keeps the check as `aten._assert_scalar`, and to_edge's
RemoveGraphAssertsPass (exir/passes/remove_graph_asserts_pass.py, "Temporary pass to
remove all the assert ops until runtime decides to address it") drops it, as documented;
the size `3 % u` becomes `executorch_prim::mod.Scalar(3, sym_size)` in the .pte
(EdgeToBackendOpsPass). Its kernel, kernels/prim_ops/register_prim_ops.cpp
(`executorch_prim::mod.Scalar`, line 646 on v1.4.1 and on main cff6f4dd, 2026-08-22), is
`out = EValue(a.toInt() % b.toInt());` with no zero check; so are `mod.int` (line 624),
`floordiv.int` (line 603) and `floordiv.Scalar` (lines 302 and 307; `3 // u` dies the
same way). In the installed 1.5.1 libexecutorch.so (compiled, no symbols) gdb stops at
an `idivq` of 1 by 0 in the function Method::execute_instruction called, right after
both EValue tags were compared with 4 (Int), and whose error branch logs line 0x288 = 648
(that kernel's ET_KERNEL_CHECK_MSG). The portable tensor kernels check the same
condition and fail with InvalidArgument (op_remainder.cpp, op_floor_divide.cpp,
op_fmod.cpp, op_div.cpp: "... encountered integer division by zero"); the prim ops never
got that check.

Found by the fixes-on 1,000-program EXIR campaign (seed 2026, exir_crash_ae0327d7): a
conv1d output indexed by `x4 % v11.shape[0]` with `v11.shape[0] = (s0 - 2) // 2 + 1`
(`floordiv(s0, 2)` then `mod(1, ...)` in the .pte). The calls were fine; the harness's
lower contract probe, s0 = 1 below the exported minimum 2, made the divisor 0, and the
runtime accepts that size because it checks no lower bound (pytorch/executorch#20546):
the worker died. Either way in, the runtime should reject, not die.

It kills whatever process runs it, so it runs isolated (ISOLATE).
"""

import torch


def program(x, y):
    u = x.nonzero().shape[0]
    torch._check(u > 0)
    return (y[3 % u],)


def calls():
    return [
        (torch.tensor([1.0, 1.0, 0.0]), torch.arange(4.0)),
        (torch.zeros(3), torch.arange(4.0)),
    ]


LANES = ("exir",)
ISOLATE = True
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the process
# died of SIGFPE in a program whose edge graph has a symbolic-integer `%` or `//` (the
# edge program's operator.mod / operator.floordiv, the prim ops of the .pte). The portable
# tensor kernels check integer division by zero (an error, not a signal), so SIGFPE with
# one of these nodes points at the prim ops. The facts are what the lane announced before
# running the .pte (fuzz/facts.py), so a crash in a call and one in a contract probe both
# match.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGFPE",
        "facts": {"ops": "operator.mod"},
    },
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGFPE",
        "facts": {"ops": "operator.floordiv"},
    },
)
# Searched the issue index for "executorch prim ops mod.Scalar division by zero SIGFPE",
# "executorch_prim floordiv integer division by zero crash runtime register_prim_ops",
# "ExecuTorch runtime floating point exception crash symbolic size modulo zero prim op"
# and "executorch torch._check assert removed at runtime _assert_scalar not enforced
# unbacked size", and the code index for the string "executorch_prim::mod" (only the
# kernel source and its tests): no upstream report found. The nearest are other stacks'
# SIGFPE on integer division by zero (pytorch/pytorch#143649 and #183610, Inductor),
# ExecuTorch's zero-division checks of the portable div kernels (pytorch/executorch#15494,
# #15496), and the unchecked lower bound that let the campaign's probe reach it
# (pytorch/executorch#20546, "executorch runtime does not check dynamic shape lower bound
# input smaller than min").
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "executorch_prim mod and floordiv kernels divide by zero unchecked and kill the process"
DESCRIBE = """
The runtime kernels for symbolic-integer `%` and `//` in
kernels/prim_ops/register_prim_ops.cpp (`executorch_prim::mod.Scalar`, `mod.int`,
`floordiv.int`, `floordiv.Scalar`) compute `a.toInt() % b.toInt()` / `/` with no zero
check, so a size that becomes 0 at runtime raises SIGFPE instead of an error. Example:
`y[3 % u]` with `u = x.nonzero().shape[0]` and `torch._check(u > 0)`; for `x = zeros(3)`
eager raises a RuntimeError, but the `_assert_scalar` is dropped by
RemoveGraphAssertsPass and the runtime process dies. A size below the exported minimum
(not rejected at set_input, see #20546) reaches it too. The portable tensor kernels
(op_remainder.cpp, op_floor_divide.cpp, op_fmod.cpp, op_div.cpp) already fail with
InvalidArgument on integer division by zero; the prim ops should do the same.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/20546",
    "https://github.com/pytorch/pytorch/issues/143649",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch prim ops floordiv
# mod division by zero crash SIGFPE symint"; "executorch_prim mod.Scalar negative modulo
# C++ truncation python semantics"; "executorch runtime does not check dynamic shape
# lower bound input smaller than min". Found: no report of this bug.
