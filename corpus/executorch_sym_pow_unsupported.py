"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): a size that is the square of a
dynamic size cannot be emitted: "invalid target for call_function <built-in function pow>".

`g = x @ x.T` has shape (s0, s0), so `g.numel()` is the SymInt `s0**2`, and torch.export
writes it into the graph as `operator.pow(sym_size, 2)`. ExecuTorch lowers each Python
operator on sizes through its table of symbolic ops
(`_PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS` in exir/passes/executorch_prim_ops_registry.py:
add, sub, mul, floordiv, truediv, mod, neg, comparisons, round, ceil, trunc, sym_min,
sym_max, ...), which has no `pow`, so the node stays `operator.pow` and the emitter
raises "InternalError: Failed with error: invalid target for call_function <built-in
function pow>". Eager returns a zero tensor of 9 elements. The same class of gap as
pytorch/executorch#11988 (`sym_max`, since added to the table). Found by a fault-benchmark
night (seed 4) in a program whose `as_strided` length was `(g.numel() + 1) // 2`; it
reproduces with our fixes and speedups off.
"""

import torch


def program(x):
    g = x @ x.transpose(-2, -1)
    return (g.new_zeros(g.numel()),)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(5, 2),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8), 1: (2, 8)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the emitter's
# refusal of an `operator.pow` node (another Python operator the table lacks is another
# gap, with its own fix, and stays new).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"invalid target for call_function <built-in function pow>",
    },
)
# Searched the issue index for "executorch invalid target for call_function built-in
# function pow", "executorch operator.pow symint emitter not supported sym ops" and
# "to_executorch fails operator.pow sym_size square dynamic shape numel": no report; the
# nearest is pytorch/executorch#11988 (sym_max missing from the same table, fixed).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Emitter rejects operator.pow on SymInts: no executorch_prim op for pow"
DESCRIBE = """
`g = x @ x.T` has shape (s0, s0), so `g.numel()` is `s0**2`, and `torch.export` writes
it as `operator.pow(sym_size, 2)`; `g.new_zeros(g.numel())` then fails in
`to_executorch` with `InternalError: ... invalid target for call_function <built-in
function pow>` (exir/emit/_emitter.py). `EdgeToBackendOpsPass` lowers Python operators
on sizes through `_PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS`
(exir/passes/executorch_prim_ops_registry.py: round, ceil, trunc, add, sub, mul,
floordiv, truediv, mod, neg, comparisons, sym_float, sym_int, sym_min, sym_max, sym_not,
sym_ite), which has no entry for `operator.pow`, so the node reaches the emitter
unchanged. Eager returns a zero tensor of s0*s0 elements. Adding an
`executorch_prim::pow.Scalar` (Python def + C++ kernel in
kernels/prim_ops/register_prim_ops.cpp) as was done for sym_max/sym_min in #12037 would
fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/11988",
    "https://github.com/pytorch/executorch/pull/12037",
    "https://github.com/pytorch/executorch/pull/20641",
)
# Searched again on 2026-12-06 (issue and code indexes): "invalid target for
# call_function built-in function pow executorch emitter"; "executorch operator.pow
# symint to_executorch numel square dynamic shape not supported sym op"; "executorch
# sym_max not supported _PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS". Found: no report of this
# bug.
