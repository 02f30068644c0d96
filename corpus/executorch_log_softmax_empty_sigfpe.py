"""Known upstream bug (ExecuTorch 1.5.1 runtime): log_softmax of an empty float32 tensor kills
the process with SIGFPE when the softmax dim or a dim after it is empty.

In eager, `F.log_softmax(x, dim)` of an empty tensor returns an empty tensor. The
ExecuTorch runtime of the Python wheel runs `aten::_log_softmax.out` with the optimized
kernel (kernels/optimized/cpu/op_log_softmax.cpp, `log_softmax_kernel`), which computes
`dim_size`, `outer_size` and `inner_size` and hands them to ATen's vectorised helpers
(`at::native::vec_log_softmax_lastdim_chunk_size` for the last dim,
`vec_logsoftmax_chunk_size_and_num_chunks(inner_size, dim_size)` otherwise). Those
helpers divide by `dim_size` and by a chunk size derived from `inner_size`; PyTorch's own
CPU kernel returns early on an empty input before calling them, the ExecuTorch kernel has
no such check (`check_log_softmax_args` accepts an empty tensor). An integer division by
zero follows: SIGFPE. Measured here (a static shape, float32): (0,), (0, 2) over dim 0,
(2, 0) over dim 0 or 1 and (3, 0, 2) over dim 0 die; (0, 2) over dim 1 (the empty dim
before the softmax dim) returns the empty result; `torch.softmax` (a portable kernel)
never died on these shapes. Found by the default nightly on 2026-12-02 with the op focus
(a generated `F.log_softmax(x0, dim=-3)` of a (0, 0, 0) input).
"""

import torch
import torch.nn.functional as F


def program(x):
    return (F.log_softmax(x, dim=0),)


def calls():
    return [(torch.randn(0, 2),)]


LANES = ("exir",)
ISOLATE = True
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the process
# died of SIGFPE, the edge program has a log_softmax, and an input of the call is empty
# (facts the lane announced before running the .pte). An empty tensor computed inside
# the program (a mask that selects nothing) is not recognised: a stated gap.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "process",
        "details": r"SIGFPE",
        "facts": {"ops": "aten._log_softmax.default", "sizes": "empty"},
    },
)
# Searched the issue index for "executorch log_softmax empty tensor crash floating point
# exception", "executorch optimized op_log_softmax zero size dim division by zero" and
# "vec_logsoftmax_chunk_size_and_num_chunks division by zero empty": no upstream report
# found. Related: the same crash in PyTorch's own CPU kernel in 2019 (pytorch/pytorch#17262,
# fixed by the early return on an empty input), and the optimized kernel's abort on
# float64 (pytorch/executorch#13551, still open: PR #13953, which says "Fixes #13551",
# only turned that abort into an InvalidArgument error and added no empty check).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Optimized log_softmax kernel crashes the process with SIGFPE on empty inputs"
DESCRIBE = """
`F.log_softmax(x, 0)` of an empty float32 tensor, e.g. shape (0, 2), returns an empty
tensor in eager, but the ExecuTorch runtime (the optimized `_log_softmax.out` kernel
that the Python wheel registers) dies with SIGFPE. `log_softmax_kernel` in
kernels/optimized/cpu/op_log_softmax.cpp hands `dim_size`, `outer_size` and `inner_size`
straight to ATen's `vec_log_softmax_lastdim_chunk_size` /
`vec_logsoftmax_chunk_size_and_num_chunks`, which divide by them; ATen's own CPU kernel
returns early on an empty input before reaching these helpers (the fix for
pytorch/pytorch#17262), and `check_log_softmax_args` accepts empty tensors. Shapes (0,),
(0, 2) over dim 0, (2, 0) over dim 0 or 1 and (3, 0, 2) over dim 0 crash; the portable
softmax kernel handles all of them. Returning right after `resize_tensor` when
`self.numel() == 0` would fix it.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/17262",
    "https://github.com/pytorch/executorch/issues/13551",
    "https://github.com/pytorch/executorch/pull/13953",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch log_softmax empty
# tensor floating point exception crash"; "optimized op_log_softmax zero size dim
# division by zero SIGFPE vec_log_softmax_lastdim"; "executorch softmax log_softmax
# kernel empty input check numel 0 early return"; "executorch optimized log_softmax
# float64 double abort"; "ExecuTorch crash for _log_softmax.default FACTO Unhandled out
# dtype 7"; "code: read kernels/optimized/cpu/op_log_softmax.cpp (stored copy: no empty-
# input check)". Found: no report of this bug.
