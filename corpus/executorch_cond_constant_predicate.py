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
