"""Known upstream bug (ExecuTorch 1.5.1 runtime): bmm over an empty contraction dim leaves
its output unwritten, so the result is whatever the memory plan left in that buffer.

In eager, `torch.bmm(a, b)` with `a` of shape (B, N, 0) and `b` of shape (B, 0, M)
is a (B, N, M) tensor of zeros (the sum over an empty dim). The ExecuTorch runtime of
the Python wheel runs `aten::bmm.out` with the optimized kernel
(kernels/optimized/cpu/op_bmm.cpp, `bmm_kernel`), which starts with
`if (self.numel() == 0 || mat2.numel() == 0 || out.numel() == 0) return;`: with K = 0
both operands are empty but the output is not, and it is returned unwritten. The memory
planner shares buffers between tensors whose lifetimes do not overlap, so the output
holds an earlier tensor's bytes (here `exp(3 x)`'s): wrong values, different per call.
`torch.einsum('ij,ij->j', a, a)` of an empty (0, n) tensor lowers to this bmm. PyTorch's
own kernel zeroes the output for an empty contraction (aten/src/ATen/native/
LinearAlgebra.cpp, `bmm_out_or_baddbmm_`). Found by tests/stacks/generator/test_properties.py
(derandomized) on 2026-12-02: `torch.einsum('ij,ij->j', v6, v6)` of an empty float16 piece
of `tensor_split`.

`aten::mm.out` does the same: `torch.mm(a, b)` of a (3, 0) and a (0, 5) tensor returns
an earlier tensor's bytes (checked 2026-12-04; `F.linear(x, w)` of an empty last dim,
which lowers to mm, in a default night at `6b4d68a`, seed 7). One upstream fix (zero the
output when the contraction is empty) covers both kernels, so both forms are this case.
"""

import torch


def program(x, a, b):
    s = (x * 3.0).exp().sum()
    return (s, torch.bmm(a, b))


def calls():
    return [
        (torch.randn(8, 8), torch.randn(1, 2, 0), torch.randn(1, 0, 3)),
        (torch.randn(8, 8), torch.randn(1, 2, 0), torch.randn(1, 0, 3)),
    ]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): wrong values
# from a program whose edge graph has a bmm, with a call that has an empty input, or
# (an empty contraction computed inside the program, e.g. an empty piece of
# tensor_split) where eager's value is exactly zero, the sum over nothing.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "details": r"values differ",
        "facts": {"ops": "aten.bmm.default", "sizes": "empty"},
    },
    {
        "kind": "exir.runtime-result",
        "details": r"values differ .* vs eager -?0\.0$",
        "facts": {"ops": "aten.bmm.default"},
    },
    {
        "kind": "exir.runtime-result",
        "details": r"values differ",
        "facts": {"ops": "aten.mm.default", "sizes": "empty"},
    },
    {
        "kind": "exir.runtime-result",
        "details": r"values differ .* vs eager -?0\.0$",
        "facts": {"ops": "aten.mm.default"},
    },
)
# Searched the issue index for "executorch bmm empty inner dimension output not zeroed
# uninitialized": no ExecuTorch report. Related: pytorch/pytorch#33467 (baddbmm with an
# empty inner dim, the same corner case in PyTorch, where bmm zeroes), and
# tgale96/grouped_gemm#36 (an output left unwritten when a GEMM is skipped).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Optimized bmm and mm leave the output unwritten when the contraction dim is empty (K = 0)"
DESCRIBE = """
In eager, `torch.bmm(a, b)` with `a` of shape (B, N, 0) and `b` of shape (B, 0, M) is a
(B, N, M) tensor of zeros, the sum over an empty dim. The optimized `bmm_kernel`
(kernels/optimized/cpu/op_bmm.cpp) starts with `if (self.numel() == 0 || mat2.numel() ==
0 || out.numel() == 0) return;`, so with K = 0 the non-empty output is returned
untouched and holds whatever the memory plan left in that buffer (another tensor's
bytes, different per call). The optimized `mm.out` (kernels/optimized/cpu/op_mm.cpp)
returns early only when `out.numel() == 0` and calls `cpublas::gemm` with k = 0; for
float this reaches Eigen's BLAS `sgemm_` with ldb = k = 0, which fails its `ldb >=
max(1, k)` argument check and returns through xerbla without writing C, so `torch.mm` of
a (3, 0) and a (0, 5) tensor (and `F.linear` over an empty last dim) shows the same
symptom. The portable bmm/mm kernels write zeros here, and ATen's `bmm_out_or_baddbmm_`
zeroes the result when the contraction size is 0. Zeroing `out` when K == 0 in both
optimized kernels would fix it.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/33467",
    "https://github.com/pytorch/pytorch/pull/175905",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch bmm mm empty inner
# dimension k=0 output not zeroed garbage"; "executorch optimized kernel op_bmm op_mm
# empty tensor zero-size input returns uninitialized". Found: no report of this bug.
