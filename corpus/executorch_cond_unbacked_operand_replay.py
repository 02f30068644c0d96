"""Known upstream bug (ExecuTorch 1.5.1): to_edge rejects every `torch.cond` whose operand
has a data-dependent size: the first ExportPass over the program raises
`ExportPassBaseError: Input at position 0 did not preserve symbolic metadata across pass
replay`.

`x[x > 0]` has the unbacked length u0. ExecuTorch's ExportPass (exir/pass_base.py)
re-traces the graph with fake tensors, and `call_submodule` then compares each
placeholder of the re-traced submodule with the original by the *names* of its symbolic
sizes (`_validate_symbolic_input_snapshots`, `_SymbolicTensorSnapshot`: `str(SymInt)`).
The re-trace runs the boolean index again, whose fake kernel allocates a fresh unbacked
symbol, so the cond branch's placeholder is `(u6,)` before and `(u8,)` after: the same
size under a new name, reported as lost metadata (the check was written for passes that
collapse a symbolic input to a static one). torch.export and `run_decompositions()`
accept the program; to_edge's first ExportPass (NormalizeTransposePass) raises, so no
program with a cond over a nonzero, masked_select or boolean-index result reaches
ExecuTorch. Backed sizes keep their names (s77) across the re-trace and pass. Found by
the fixes-on campaign with the new op mask_index_rows (`x[x.flatten(1).sum(1) > 0]`
fed to a shape-predicate cond).
"""

import torch


def program(x):
    return (torch.cond(x.sum() > 0, lambda t: t.abs(), lambda t: -t, (x[x > 0],)),)


def calls():
    return [(torch.tensor([1.0, -2.0, 3.0]),), (torch.tensor([-1.0, -2.0, 0.5]),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): ExportPass's
# replay check rejecting a cond branch input (the only higher-order op whose branches
# take a data-dependent operand in the programs the harness generates).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": r"did not preserve symbolic metadata across pass replay",
        "facts": {"ops": ["higher_order.cond"]},
    },
)
# Searched the issue index (pytorch/pytorch, pytorch/executorch) for the error text
# "did not preserve symbolic metadata across pass replay", "executorch to_edge torch.cond
# unbacked symint operand nonzero", "ExportPass validate symbolic input metadata replay
# should_preserve_symbolic_input_metadata": no report of this (nor the PR that added the
# check). Related, not this: pytorch/pytorch#154559 and #185504 (export of cond with
# unbacked sizes, which now works).
UPSTREAM = None
# A program torch.export accepts and ExecuTorch's own pass infrastructure refuses in the
# stock to_edge: ExecuTorch's bug.
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_edge rejects torch.cond on a data-dependent-size operand (replay compares symbol names)"
DESCRIBE = """
`torch.cond(x.sum() > 0, f, g, (x[x > 0],))` exports and runs, but the first ExportPass
in to_edge raises `ExportPassBaseError: Input at position 0 did not preserve symbolic
metadata across pass replay`. `ExportPass.call_submodule` (exir/pass_base.py) calls
`_validate_symbolic_input_snapshots`, which compares each placeholder's sizes before and
after the re-trace as strings (`_SymbolicTensorSnapshot`, `str(SymInt)`). Re-tracing the
boolean index allocates a fresh unbacked symbol, so the branch placeholder goes from
`(u6,)` to `(u8,)`: the same data-dependent size under a new name, which the check
reports as lost metadata. The check was added to catch passes that concretize a symbolic
input. Backed symbols keep their names (s77) and pass. As a result, no program with a
cond over a `nonzero`, `masked_select` or boolean-index result can be lowered. Comparing
'still symbolic vs. concretized' (or unbacked symbols up to renaming) instead of exact
names would avoid the false positive.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/19928",
    "https://github.com/pytorch/executorch/pull/22056",
)
# Searched again on 2026-12-06 (issue and code indexes): ""did not preserve symbolic
# metadata across pass replay""; "executorch ExportPass symbolic input metadata replay
# unbacked symint cond branch to_edge fails". Found: no report of this bug.
