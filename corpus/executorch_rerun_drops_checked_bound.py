"""Known limitation (ExecuTorch 1.5.1): SpecPropPass re-run after RemoveGraphAssertsPass
forgets the `torch._check` bound of a data-dependent size, so memory planning sees an
unbounded (or sys.maxsize-bounded) size where the stock pipeline plans the checked one.

`torch.bincount(x)` has an output length only the data decides: its fake kernel
allocates a fresh unbacked symbol u with the range [0, int_oo] (`unique` and
`unique_consecutive` over a symbolic numel get [0, sys.maxsize - 1]; `repeat_interleave`
[0, int_oo]). The program bounds it with `torch._check(v.shape[0] <= 8)`, which export
records twice: in the ShapeEnv's `var_to_range` for the export-time symbol, and as an
`aten._assert_scalar` node in the graph. SpecPropPass is an ExportPass: it re-traces
every node, so the op's fake kernel runs again and allocates a *new* unbacked symbol
with the kernel's own range; the bound reaches the new symbol only when the re-trace
replays the `_assert_scalar` node. The stock pipeline runs SpecPropPass once, before
RemoveGraphAssertsPass, so the asserts are replayed and the plan is bounded (a re-run
right after it, the "repeat" point, plans the same). Re-run after RemoveGraphAssertsPass
has deleted the asserts, nothing bounds the new symbol: ConstraintBasedSymShapeEvalPass
raises `Cannot evaluate a finite upper bound for symbolic expression u22 (int_oo)` for
bincount and repeat_interleave, and for unique the plan grows to sys.maxsize elements
(`['0', '128'] -> ['0', '73786976294838206528']`) (exir.pipeline-variance at the
after-asserts and before-planning points). nonzero and masked_select do not show it:
their fake kernels bound the new symbol by the input's numel themselves. Found by the
fixes-on campaign with the new ops (bincount, unique, unique_consecutive,
repeat_interleave).
"""

import torch


def program(x):
    v = torch.bincount(x)
    torch._check(v.shape[0] <= 8)
    return (v,)


def calls():
    return [(torch.tensor([0, 3, 1]),), (torch.tensor([7, 2, 2, 5, 0, 1]),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 6)}}
EXPECT = ("exir.pipeline-variance",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a re-run
# SpecPropPass on a program whose graph bounds a size by an assert, that either raises
# for an int_oo bound of an unbacked symbol or plans a buffer of sys.maxsize elements
# (19 or more digits of bytes).
MATCHES = (
    {
        "kind": "exir.pipeline-variance",
        "stage": "pipeline-variance[*]",
        "details": r"finite upper bound for symbolic expression u\d+ \(int_oo\)",
        "facts": {"ops": ["aten._assert_scalar.default"]},
    },
    {
        "kind": "exir.pipeline-variance",
        "stage": "pipeline-variance[*]",
        "details": r"changes the memory plan at <arena>: \[[^\]]*\] -> \['\d+', '\d{19,}'\]",
        "facts": {"ops": ["aten._assert_scalar.default"]},
    },
)
# Searched the issue index (pytorch/pytorch, pytorch/executorch) for "SpecPropPass
# unbacked symint upper bound RemoveGraphAssertsPass", "Cannot evaluate a finite upper
# bound int_oo executorch bincount", "ExportPass retrace fresh unbacked symbol torch._check
# range", "SpecPropPass twice unbacked bound sys.maxsize unique": no report of this.
# Related: pytorch/executorch#20834 (falls back to the trace hint for int_oo; an unbacked
# symbol has none) and pytorch/pytorch#134899 (masked_select's kernel bounds its symbol).
UPSTREAM = None
# Shown only by SpecPropPass re-run after EdgeToBackendOpsPass and RemoveGraphAssertsPass,
# where ExecuTorch says Interpreter-based passes must not run because of unbacked symints
# (the comment in `edge_to_executorch_passes`; pytorch/executorch PR #1372): outside the
# pipeline ExecuTorch supports.
CLASS = "limitation"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Re-running SpecPropPass after RemoveGraphAssertsPass loses torch._check size bounds"
DESCRIBE = """
`SpecPropPass` is an `ExportPass`, so each run re-traces every node and a data-dependent
op's fake kernel allocates a fresh unbacked symbol with the kernel's own range (`[0,
int_oo]` for `bincount` and `repeat_interleave`, `[0, sys.maxsize - 1]` for `unique`).
The program's bound (`torch._check(v.shape[0] <= 8)`) reaches the new symbol only when
the re-trace replays the `aten._assert_scalar` node. The default pipeline in
`edge_to_executorch_passes` (exir/program/_program.py) runs `SpecPropPass` before
`RemoveGraphAssertsPass`, so the plan is bounded; a backend or user pass list that runs
`SpecPropPass` again after the asserts are removed gets an unbounded symbol:
`ConstraintBasedSymShapeEvalPass` raises `Cannot evaluate a finite upper bound for
symbolic expression uN (int_oo)` for `bincount`, and for `unique` the planned buffer
grows to ~7e19 bytes. `nonzero` and `masked_select` are not affected because their fake
kernels bound the new symbol by the input's numel. The comment in
`edge_to_executorch_passes` already says passes after `EdgeToBackendOpsPass` must not be
Interpreter-based, so this may be documented as unsupported; a clearer error, or keeping
the checked bound on the spec, would help.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/20834",
    "https://github.com/pytorch/executorch/pull/1372",
    "https://github.com/pytorch/pytorch/pull/134899",
)
# Searched again on 2026-12-06 (issue and code indexes): "SpecPropPass unbacked symint
# upper bound lost RemoveGraphAssertsPass"; "Cannot evaluate a finite upper bound for
# symbolic expression int_oo executorch memory planning"; "ExportPass retrace creates
# new unbacked symbol loses torch._check range bincount repeat_interleave executorch".
# Found: no report of this bug.
