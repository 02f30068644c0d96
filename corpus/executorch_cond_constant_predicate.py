"""Known upstream bug (ExecuTorch 1.5.1 emitter): a torch.cond whose predicate export
made constant cannot be emitted; to_executorch raises.

`torch.cond(x.shape[0] > 2, ...)` traces its predicate as a SymBool on x's dynamic dim
0 (declared [2, 4]), but `x + y` with a static y of 3 elements makes export specialize
that dim to 3, so the exported graph holds `cond(True, submodule_0, submodule_1, [add])`:
a valid ExportedProgram (it runs, and torch's exportdb shows `cond(False, ...)` as
export output). Edge lowering and memory planning accept it, but the emitter's
`_emit_cond` asserts the predicate is an emitted value (`assert isinstance(pred,
_AbstractValue)`) and to_executorch fails with InternalError instead of emitting the
true branch (or a constant predicate). Eager returns `(x + y) * 2.0`; ExecuTorch cannot
produce a program at all (exir.crash at to_executorch). A predicate that stays
symbolic (no specialization) emits fine. Found by the EXIR lane.
"""

import torch


def program(x, y):
    z = x + y
    return (torch.cond(x.shape[0] > 2, lambda z: z * 2.0, lambda z: -z, (z,)),)


def calls():
    return [(torch.randn(3), torch.randn(3)), (torch.randn(3), torch.randn(3))]


LANES = ("exir",)
DIMS = {"x": {0: (2, 4)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"InternalError: Failed with error",
        "facts": {"ops": "higher_order.cond:constant-predicate"},
    },
)
UPSTREAM = None  # no upstream report found; see the case docstring for the repro
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_executorch fails on a torch.cond whose predicate export made constant"
DESCRIBE = """
`torch.cond(x.shape[0] > 2, ...)` traces its predicate as a SymBool, but when another op
(here `x + y` with a static `y` of 3 elements) makes export specialize that dim, the
exported graph holds `cond(True, true_graph_0, false_graph_0, ...)`. This is a valid
ExportedProgram: it runs, and to_edge and memory planning accept it. The emitter's
`_emit_cond` (exir/emit/_emitter.py) then asserts `isinstance(pred, _AbstractValue)`
before emitting the JumpFalseCall, so to_executorch fails with InternalError instead of
emitting the taken branch only (or a jump on a constant). A predicate that stays
symbolic emits fine. Either the emitter (or a pre-emit pass) could inline the branch
selected by a Python bool predicate, or emit the bool as a constant value.
"""
RELATED = ("https://github.com/pytorch/pytorch/pull/130493",)
# Searched again on 2026-12-06 (issue and code indexes): "executorch emitter _emit_cond
# assert isinstance(pred, _AbstractValue) constant predicate"; "torch.export cond
# predicate becomes constant True after shape specialization graph keeps cond(True".
# Found: no report of this bug.
