"""Known upstream bug (ExecuTorch 1.5.1 runtime): `index_select` along an empty dim with an
empty index fails with InvalidArgument (0x12), where eager returns an empty tensor.

`torch.index_select(x, 0, i)` with `x` of shape (0,) and an empty int64 `i` is an empty
tensor in eager; the ExecuTorch runtime raises `method->execute() failed with error
0x12`, and its log says "[index_util.cpp:71] Check failed (nonempty_size(in, dim) > 0):
index_select: Indexing axis dim should be positive; nonempty_size(in, dim) = 0" and
"KernelCall failed ... in operator aten::index_select.out". The portable kernel
(kernels/portable/cpu/op_index_select.cpp, `index_select_out`, line 30) calls
`check_index_select_args` (kernels/portable/cpu/util/index_util.cpp, lines 64-73 on
v1.4.1 and on main cff6f4dd, 2026-08-22), which requires the indexed dim to be non-empty
before anything else (since "Fix op index_select", pytorch/executorch#709). ATen has that
check too, but only where it matters: `index_select_out_cpu_` returns the empty result
first when the index is empty ("self indexing axis dim should be positive" is raised only
for a non-empty index into an empty dim). The edge program is right; the fault is the
kernel's argument check.

The common way in is `torch.repeat_interleave(x, repeats)` with a tensor of repeats:
export decomposes it into `aten.repeat_interleave.Tensor(repeats)` (the indices) and
`aten.index_select(x, 0, indices)`, so any repeat_interleave of an empty input fails at
runtime. Found that way by the fixes-on 1,000-program EXIR campaign (seed 2026,
exir_crash_5057c1ae: `repeat_interleave(x0, (x0 > 0).long() + 1)` of an empty float32
x0, error 0x12 at call 0; reduced by hand to the repeat_interleave and then to this).
"""

import torch


def program(x, i):
    return (torch.index_select(x, 0, i),)


def calls():
    return [(torch.randn(0), torch.zeros(0, dtype=torch.int64))]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the runtime
# returns InvalidArgument (0x12) on a call, in a program whose edge graph has
# index_select (written, or from a repeat_interleave with tensor repeats), and the
# runtime's log (captured into the crash, fuzz/backends/exir/runtime.py) has the
# kernel's check on the empty axis. Until the log was captured the pattern also asked
# for an empty input ("sizes" fact), and an empty tensor made inside the program from
# non-empty inputs (a mask that selects nothing) went unrecognised.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"failed with error 0x12 \(runtime log: .*index_select: Indexing axis dim "
        r"should be positive",
        "facts": {"ops": "aten.index_select.default"},
    },
)
# Searched the issue index for "executorch index_select empty tensor Indexing axis dim
# should be positive" and "executorch repeat_interleave empty input runtime error
# InvalidArgument portable kernel", and the code index for the string "Indexing axis dim
# should be positive" (only the kernel source, ports of it, and ATen's own check): no
# upstream report found. The nearest are ATen's fixes of index_select on empty inputs
# (pytorch/pytorch#70675, #77881: the ordering ExecuTorch's check lacks) and
# pytorch/executorch#7264 (the repeat_interleave.Tensor_out kernel).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Portable index_select fails with InvalidArgument for an empty index along an empty dim"
DESCRIBE = """
`torch.index_select(x, 0, i)` with `x` of shape (0,) and an empty int64 `i` returns an
empty tensor in eager, but the ExecuTorch runtime fails `aten::index_select.out` with
error 0x12, logging `index_select: Indexing axis dim should be positive;
nonempty_size(in, dim) = 0`. `check_index_select_args`
(kernels/portable/cpu/util/index_util.cpp, called from `index_select_out` in
kernels/portable/cpu/op_index_select.cpp) rejects an empty indexed dim before looking at
the index. ATen raises "self indexing axis dim should be positive" only when a non-empty
index points into an empty dim; with an empty index it returns the empty result. Because
export lowers `torch.repeat_interleave(x, repeats_tensor)` to `repeat_interleave.Tensor`
+ `index_select`, every repeat_interleave of an empty input fails the same way.
Requiring a non-empty dim only when `index.numel() > 0` would match ATen.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/70675",
    "https://github.com/pytorch/pytorch/pull/77881",
    "https://github.com/pytorch/executorch/pull/7264",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch index_select empty
# tensor "Indexing axis dim should be positive""; "executorch repeat_interleave empty
# input fails runtime index_select"; "executorch portable kernel index_select zero-size
# dimension empty index InvalidArgument"; "code: find_string "Indexing axis dim should
# be positive"". Found: no report of this bug.
