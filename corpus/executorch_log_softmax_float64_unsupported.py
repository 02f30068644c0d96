"""Known upstream bug (ExecuTorch 1.5.1 runtime): log_softmax of a float64 tensor fails with
error 0x12 (InvalidArgument): the optimized kernel has no float64 path.

In eager, `F.log_softmax(x, dim)` of a float64 tensor is a float64 tensor; export and
to_edge keep `aten._log_softmax.default` in float64. The ExecuTorch runtime of the
Python wheel runs `aten::_log_softmax.out` with the optimized kernel
(kernels/optimized/cpu/op_log_softmax.cpp), which handles float32, half and bfloat16 and
falls through to `ET_KERNEL_CHECK(context, false, InvalidArgument, out)` for any other
dtype: the runtime logs `[op_log_softmax.cpp:171] Check failed (false)` and
`method->execute()` fails. The portable kernel supports float64; so does `softmax` here.
Measured here: float64 (3,), (0,) and (0, 2) fail; float32, float16 and bfloat16 (3,)
and float64 `F.softmax` pass. Found by a fault-benchmark nightly on 2026-12-04 (a
generated `F.log_softmax(x1, dim=0)` of a float64 input; the fault was elsewhere).
"""

import torch
import torch.nn.functional as F


def program(x):
    return (F.log_softmax(x, dim=0),)


def calls():
    return [(torch.randn(3, dtype=torch.float64),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the runtime's
# log names the log_softmax kernel's failed check (error 0x12 is every kernel's failed
# check), and the edge program makes a float64 log_softmax (whether the input or the
# program made the float64).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"\[op_log_softmax\.cpp:\d+\] Check failed \(false\)",
        "facts": {"ops": "aten._log_softmax.default:float64"},
    },
)
# Searched the issue index for "executorch optimized log_softmax float64 double not
# supported Check failed": pytorch/executorch#13551 (open, found by FACTO: the optimized
# kernel aborted on float64), whose fix PR #13953 turned the abort into this graceful
# InvalidArgument error without adding float64; PR #20090 added half and bfloat16 only.
UPSTREAM = "https://github.com/pytorch/executorch/issues/13551"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Optimized log_softmax kernel rejects float64 inputs with InvalidArgument"
DESCRIBE = """
A float64 `F.log_softmax(x, dim)` exports and lowers with `aten._log_softmax.default` in
float64, but the ExecuTorch runtime fails `method->execute()` with error 0x12, logging
`[op_log_softmax.cpp:171] Check failed (false)`. The optimized kernel
(kernels/optimized/cpu/op_log_softmax.cpp, `opt_log_softmax_out`) handles Float (and,
since #20090, Half and BFloat16) and falls through to `ET_KERNEL_CHECK(context, false,
InvalidArgument, out)` for any other dtype. The portable kernel supports float64, and so
does softmax, so a float64 model that works with portable kernels fails once the
optimized library is linked. Adding a Double path (or falling back to the portable
kernel for dtypes the optimized one does not handle) would fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/13953",
    "https://github.com/pytorch/executorch/pull/20090",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch optimized
# log_softmax float64 double abort"; "ExecuTorch crash for _log_softmax.default FACTO
# Unhandled out dtype 7"; "optimized log_softmax add double support fall back to
# portable kernel float64". Found: https://github.com/pytorch/executorch/issues/13551.
