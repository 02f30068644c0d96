"""Known upstream bug (torch 2.13 non-strict export): a dict lookup keyed by a dynamic size crashes.

`{4: 0.5}.get(x.shape[1], 1.0)` is ordinary Python on a shape, and eager runs it. With
`x.shape[1]` dynamic (`Dim.AUTO`), `torch.export.export(..., strict=False)` hashes the
SymInt and raises `TypeError: unhashable type: non-nested SymInt` instead of guarding
or specializing, so the program never reaches EXIR (exir.crash at export). Found by the
nightly job on a generated shape-keyed lookup; a tuple lookup `(...)[x.shape[1] % 3]`
exports (specialized by a guard). The generator now draws the dict lookup for Thunder
only (fuzz/ops/branches.py): on the EXIR lane it ended every program at export.
"""

import torch


def program(x):
    return ({4: 0.5}.get(x.shape[1], 1.0) * x,)


def calls():
    return [(torch.randn(3, 3),), (torch.randn(3, 4),)]


LANES = ("exir",)
DIMS = {"x": {0: (3, 5), 1: (3, 5)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "export",
        "details": r"unhashable type: non-nested SymInt",
    },
)
UPSTREAM = None  # related, not the same path: https://github.com/pytorch/pytorch/issues/114366
# non-strict export refuses to hash a symbolic SymInt on purpose (pytorch PR #185190).
CLASS = "limitation"
