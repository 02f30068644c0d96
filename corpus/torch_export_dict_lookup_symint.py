"""Known limitation (torch 2.13 non-strict export, by design): a dict lookup keyed by a
dynamic size raises.

`{4: 0.5}.get(x.shape[1], 1.0)` is ordinary Python on a shape, and eager runs it. With
`x.shape[1]` dynamic (`Dim.AUTO`), `torch.export.export(..., strict=False)` hashes the
SymInt and raises `TypeError: unhashable type: non-nested SymInt` instead of guarding
or specializing, so the program never reaches EXIR (exir.crash at export). Found by the
nightly job on a generated shape-keyed lookup; a tuple lookup `(...)[x.shape[1] % 3]`
exports (specialized by a guard). The generator now draws the dict lookup for Thunder
only (fuzz/ops/branches.py): on the EXIR lane it ended every program at export.
Upstream keeps symbolic SymInts unhashable on purpose (pytorch/pytorch PR #185190: only
constant SymInts hash; einops relies on the TypeError), so this is a limitation to know,
not a bug to file.
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
UPSTREAM = "https://github.com/pytorch/pytorch/pull/185190"
# non-strict export refuses to hash a symbolic SymInt on purpose (pytorch PR #185190).
CLASS = "limitation"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Non-strict export: dict lookup keyed by a dynamic size raises unhashable SymInt TypeError"
DESCRIBE = """
`{4: 0.5}.get(x.shape[1], 1.0) * x` runs in eager, but `torch.export.export(...,
strict=False)` with `x.shape[1]` dynamic (`Dim.AUTO`) fails with `TypeError: unhashable
type: non-nested SymInt`, because `SymInt.__hash__` (`torch/__init__.py`) raises for any
symbolic value instead of guarding or specializing. A tuple lookup such as `(a, b,
c)[x.shape[1] % 3]` exports fine by installing a guard. The code comment says that
specializing on hash is not done because einops relies on the TypeError, so this looks
intentional. It would still help if non-strict export specialized the dim (with the
usual specialization message) or pointed users to `torch._check`/an explicit `int()`,
instead of failing with a bare TypeError from user code.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/pull/130548",
    "https://github.com/pytorch/pytorch/pull/119244",
    "https://github.com/pytorch/pytorch/issues/114366",
)
# Searched again on 2026-12-06 (issue and code indexes): "unhashable type: non-nested
# SymInt"; "non-strict export dict keyed by tensor shape x.shape[1] dynamic SymInt hash
# TypeError dictionary lookup"; "hashing a SymInt should raise error instead of
# specializing ezyang 130547". Found: https://github.com/pytorch/pytorch/pull/185190.
