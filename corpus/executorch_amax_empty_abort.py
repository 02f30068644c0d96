"""Known upstream bug (ExecuTorch 1.5.1 runtime): amax over a non-empty dim of an empty
tensor aborts the process.

`x` has shape (1, 0): `torch.amax(x, dim=0)` reduces a dim of size 1 and returns an empty
tensor of shape (0,) in eager. The exported program takes the static shape (1, 0) (export
specializes sizes 0 and 1), so the call is inside its contract, and the portable amax
kernel's reduction plan asserts `in.numel() > 0` ("Input tensor must be nonempty" in
reduce_util.h, MapReduceOverDimListPlan) with ET_CHECK: the process aborts (SIGABRT)
instead of returning an empty tensor or an error. Found by the fixes-on EXIR campaign
(a generated program whose first call had an empty dim); `sum` and `mean` over the same
tensor run fine. `amin` (and `aminmax`, which to_edge lowers to `amin`) is the same kernel
shape over the same reduction plan (op_amin.cpp includes reduce_util.h) and aborts alike:
measured on 2026-12-04, after a default nightly's SIGABRT on a program with an `amin`
that no pattern recognised.

`argmax`/`argmin` over an empty operand abort alike, in the single-dim plan
(`[reduce_util.h:494] In function map_reduce_over_dim<..., native::argmax_out(...)`; the
runtime's log buffer cuts the line before its assertion). Eager raises there, so a call
inside the contract never feeds one an empty operand; a lower contract probe does (a
size below the exported minimum makes `tensor_split`'s first piece empty), when the
runtime accepts it (corpus/executorch_runtime_per_dim_bounds.py) and then dies. Such a
death is recognised by the runtime's last log lines, which a process that dies in
isolation leaves for its parent (fuzz.procs.RUNTIME_LOG_ENV): patterns 3 and 4, for an
isolated run ("the process died (SIGABRT) (runtime log: ...") and a nightly worker's
death ("the worker process died (SIGABRT) while exir ran this program (runtime log:
..."; until 2026-12-05 the patterns took only the first, and the fixes-on 1,000-program
campaign filed a logsumexp's amax under a lower probe as new). Found by the
fault-benchmark nights of 2026-12-05 (seeds 2 and 4), an `amin` and an `argmax`.

It kills whatever process runs it, so it runs isolated (ISOLATE).
"""

import torch


def program(x):
    return (torch.amax(x, dim=0),)


def calls():
    return [(torch.randn(1, 0),)]


LANES = ("exir",)
ISOLATE = True
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGABRT",
        "facts": {"ops": "aten.amax.default", "sizes": "empty"},
    },
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGABRT",
        "facts": {"ops": "aten.amin.default", "sizes": "empty"},
    },
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGABRT\)[^\n]* \(runtime log: .*MapReduceOverDimListPlan\(\), assert failed "
        r"\(in\.numel\(\) > 0\): Input tensor must be nonempty",
    },
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGABRT\)[^\n]* \(runtime log: .*\[reduce_util\.h:\d+\] In function "
        r"map_reduce_over_dim<[^;]*native::arg(max|min)_out\(",
    },
)
# Searched the issue index for "MapReduceOverDimListPlan Input tensor must be nonempty"
# and "amax empty tensor abort executorch": no upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable amax/amin kernels abort the process (SIGABRT) on an empty input tensor"
DESCRIBE = """
`torch.amax(x, dim=0)` with `x` of shape (1, 0) reduces a dim of size 1 and returns an
empty (0,) tensor in eager, but the ExecuTorch runtime aborts the whole process
(SIGABRT). `amax_out` and `amin_out` (kernels/portable/cpu/op_amax.cpp, op_amin.cpp)
build a `ReduceOverDimListPlan` unconditionally, and the `MapReduceOverDimListPlan`
constructor in kernels/portable/cpu/util/reduce_util.h does `ET_CHECK_MSG(in.numel() >
0, "Input tensor must be nonempty")`. `sum`, `mean`, `var` and `any` already avoid this
(since #13833 they build the plan only when `in.numel() > 0`), and the new contiguous
fast path in amax/amin is also guarded by `in.numel() > 0`, but the generic path is not.
`aminmax` lowers to `amin` and aborts the same way; `argmax`/`argmin` hit the same
`ET_CHECK` in `map_reduce_over_dim` when the reduced dim is empty, where eager raises an
error rather than the process dying. Skipping the plan when the input is empty (the
output is then empty too), and turning the remaining assertion into a kernel error,
would fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/13833",
    "https://github.com/pytorch/executorch/pull/21142",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch amax empty tensor
# "Input tensor must be nonempty" abort"; "executorch portable amin amax argmax zero-
# size input crash SIGABRT reduce_util MapReduceOverDimListPlan"; "executorch amin amax
# empty input ReduceOverDimListPlan crash fix". Found: no report of this bug.
