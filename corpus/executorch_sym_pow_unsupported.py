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
