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
