"""Known upstream bug (ExecuTorch 1.5.1 runtime): `executorch_prim::mod.Scalar`, the `%` of
symbolic sizes, is C's truncated remainder, not Python's, so `torch.roll` of a dynamic dim
by more than its size crashes the runtime (an index of -1 in `index_select`).

`torch.roll(x, 3, 0)` exported with a dynamic `x.shape[0]` runs on `x` of 4 elements and
raises at 2: `method->execute() failed with error 0x12`, the runtime log saying
`index[0] = -1 is out of range [0, 2)` (kernels/portable/cpu/util/index_util.cpp) in
`aten::index_select.out`. torch's decomposition of roll (torch/_refs/__init__.py `roll`,
registered for `aten.roll`) computes `start = (size - shift) % size` and selects
`fmod(start + arange(size), size)`: with Python's `%` the start is in [0, size), so every
index is. Export keeps `(s0 - 3) % s0` as `operator.mod` of two SymInts; EdgeToBackendOpsPass
(exir/passes/executorch_prim_ops_registry.py, `_PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS`)
maps it to `executorch_prim.mod.Scalar`, whose C++ kernel
(kernels/prim_ops/register_prim_ops.cpp, `executorch_prim::mod.Scalar` and `mod.int`:
`out = EValue(a.toInt() % b.toInt());`, lines 624 and 646 on v1.4.1 and on main
cff6f4dd) truncates: `(2 - 3) % 2` is -1 at runtime, 1 in Python. `fmod` keeps the sign,
so the first index is -1. The `floordiv.Scalar` kernel beside it does correct C's
truncation to Python's floor; `mod` never did (since pytorch/executorch#4057 and #5721
added it; the kernel test checks `3 % 4` only). The ATen program, the edge program and
the Python kernel of the op (`int(a) % int(b)`) are right: the edge program interpreted
in Python agrees with eager, so the fault is only at runtime. Any shift larger than the
dim's size at a call crashes (shift 3 on 2, 5 on 4, also `torch.roll(x, 5)` without dims,
which rolls the flattened numel); a negative shift never does (`(s + k) % s`).

Found as an EXIR crash of a generated program with `torch.tensor_split` (issue #19): `v6,
v7 = torch.tensor_split(x1, (0,), 0)` then `torch.roll(v7, 3, 1)` on a float16 (2, 2)
input. tensor_split, the empty first piece and the dtype play no part: `torch.roll(x, 3,
1)` alone crashes the same way (float16, float32 and int64 tried). Its origin fact,
`aten.tensor_split.indices` (shape), was the harness comparing the ATen node's tuple of
pieces with the one `slice_copy` the edge program kept of it (fixed in
fuzz/backends/exir/origin.py). The same `%` gives a wrong value where the number is used
as one: `x * ((x.shape[0] - 3) % x.shape[0])` is `-x` at runtime for 2 elements, `x` in
eager (exir.runtime-result); no generated op makes such a number, and MATCHES does not
claim it (a value divergence in a program with a `%` of sizes is too common a symptom).

Every program with a symbolic `%` also shows executorch_prim_mod_symint (re-running
SpecPropPass cannot re-trace the op's Python kernel: exir.pipeline-variance), named in
ALSO: its divergences are that case's, set aside here.
"""

import torch


def program(x):
    return (torch.roll(x, 3, 0),)


def calls():
    return [(torch.arange(4.0),), (torch.arange(2.0),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8)}}
EXPECT = ("exir.crash",)
ALSO = ("executorch_prim_mod_symint",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the runtime
# rejecting an argument (error 0x12, InvalidArgument) in a program whose edge graph has
# roll's decomposition: a `%` of symbolic sizes (operator.mod), the fmod of the shifted
# arange and the index_select it feeds, and the runtime's log (captured into the crash,
# fuzz/backends/exir/runtime.py) saying index_select's index is out of range. A crash of
# another check, or of another kernel, in a program that also rolls is not this bug.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->execute\(\) failed with error 0x12 \(runtime log: .*index\[\d+\] = "
        r"-?\d+ is out of range .*in operator aten::index_select\.out",
        "facts": {
            "ops": ["operator.mod", "aten.fmod.Scalar", "aten.index_select.default"],
        },
    },
)
# Searched the issue index for "executorch torch.roll dynamic shape index_select out of
# range", "executorch_prim mod.Scalar negative modulo C++ % sign python floor",
# "executorch tensor_split runtime crash", "index_select index out of range error 0x12
# executorch method execute failed roll", "executorch prim ops mod wrong result negative
# symint dynamic shape", "torch.roll shift larger than dimension size dynamic export
# wrong" and "executorch floordiv.Scalar negative rounding python semantics prim op fix",
# and the code index for "executorch_prim::mod": no upstream report found. The nearest
# are other stacks' forms of the same mistake: apple/coremltools#2778 (roll's `mod` of a
# dynamic dim truncates at runtime, a negative shift) and apple/coremltools#2838 (roll on
# a dynamic axis fails at execute); pytorch/executorch#13520 is another index_select-like
# 0x12 (an index of 2**32 in `index.Tensor`), not this.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "executorch_prim::mod.Scalar uses C truncated remainder; torch.roll on dynamic dims fails"
DESCRIBE = """
EdgeToBackendOpsPass maps `operator.mod` of SymInts to `executorch_prim.mod.Scalar`,
whose C++ kernel (kernels/prim_ops/register_prim_ops.cpp, `mod.Scalar` and `mod.int`:
`out = EValue(a.toInt() % b.toInt());`) gives the sign of the dividend, while Python's
`%` (and the op's Python kernel `int(a) % int(b)`) gives the divisor's. torch's roll
decomposition computes `(size - shift) % size`, so `torch.roll(x, 3, 0)` exported with a
dynamic dim works for 4 elements but at 2 gets start -1 and fails
`aten::index_select.out` with error 0x12 (`index[0] = -1 is out of range [0, 2)`). Any
shift larger than the dim size at runtime fails, and `x * ((x.shape[0] - 3) %
x.shape[0])` silently gives `-x`. The neighbouring `floordiv.Scalar` kernel already
corrects C truncation to Python's floor; mod needs the same (add b when the result is
non-zero and its sign differs from b's).
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/4057",
    "https://github.com/pytorch/executorch/pull/5721",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch_prim mod.Scalar
# negative modulo C++ truncation python semantics"; "executorch prim ops floordiv mod
# division by zero crash SIGFPE symint". Found: no report of this bug.
