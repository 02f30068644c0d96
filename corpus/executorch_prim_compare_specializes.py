"""Known upstream bug (ExecuTorch 1.5.1): re-running SpecPropPass after EdgeToBackendOpsPass
specializes a dynamic dim to the export example's size, and the plan under-allocates.

`torch.cond(x.shape[0] > 2, ...)` exports its predicate as `operator.gt(s77, 2)` on a
SymInt. EdgeToBackendOpsPass replaces it with `executorch_prim.gt.Scalar`, whose schema
returns a plain `bool`: when SpecPropPass (an ExportPass re-trace, which ExecuTorch notes
backends call more than once) runs after it, the op turns the SymBool into a bool by
guarding on the example's size. With the example x of size 2 the shared ShapeEnv gains
the guard `s77 <= 2` and the replacement s77 -> 2 (range [2, 4] -> [2, 2]), so memory
planning gives x, the cond output and both branches' results 2 floats (8 bytes) where
the program declares up to 4 (16 bytes): an input of size 4 would overflow them. The
stock pipeline (no re-trace after that pass) plans 4 (exir.pipeline-variance at the
after-asserts and before-planning points; an example of size 3 guards `s77 > 2`
instead, which keeps the max and so the plan). Found by the EXIR lane.
"""

import torch


def program(x):
    return (torch.cond(x.shape[0] > 2, lambda x: x * 2.0, lambda x: -x, (x,)),)


def calls():
    return [(torch.randn(2),), (torch.randn(4),), (torch.randn(3),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 4)}}
EXPECT = ("exir.pipeline-variance",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.pipeline-variance",
        "stage": "pipeline-variance[*]",
        # A cond whose predicate compares a size: operator.gt/lt/ge/le/eq/ne on a SymInt.
        "facts": {"ops": ["higher_order.cond", "operator.??"]},
    },
)
UPSTREAM = None  # no upstream report found; see the case docstring for the repro
# Shown only by SpecPropPass re-run after EdgeToBackendOpsPass, where ExecuTorch says
# Interpreter-based passes must not run (pytorch/executorch PR #1372): outside the
# pipeline ExecuTorch supports.
CLASS = "limitation"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "SpecPropPass re-run after EdgeToBackendOpsPass specializes a dynamic dim in a size compare"
DESCRIBE = """
EdgeToBackendOpsPass replaces `operator.gt(s0, 2)` (e.g. a `torch.cond` predicate on
`x.shape[0] > 2`) with `executorch_prim.gt.Scalar`, whose schema returns a plain `bool`
(exir/passes/executorch_prim_ops_registry.py). If SpecPropPass re-traces the graph after
that pass, the SymBool is forced to a bool by guarding on the example size: with an
example of size 2 the shared ShapeEnv gains `s0 <= 2` and the range [2, 4] collapses to
[2, 2], so memory planning allocates 2 elements for tensors declared up to 4, and a
size-4 input would overflow them. The stock pipeline runs SpecPropPass only before
EdgeToBackendOpsPass, and a comment in `edge_to_executorch_passes` says later passes
cannot be Interpreter-based, so this is a limitation for backends that re-run it;
returning SymBool from the comparison prims would keep the range.
"""
RELATED = ("https://github.com/pytorch/executorch/pull/15932",)
# Searched again on 2026-12-06 (issue and code indexes): "executorch_prim gt.Scalar
# returns bool specializes dynamic shape guard torch.cond predicate re-trace";
# "executorch pull 1372 SpecPropPass run after EdgeToBackendOpsPass interpreter based
# passes". Found: no report of this bug.
