"""Known upstream bug (torch 2.13 export): an in-place write through `F.dropout(x,
training=False)` mutates `x` in eager, and the exported program drops that mutation.

Eager `dropout` with `train=False` (or p=0) returns its input tensor itself, although
its schema (`dropout(Tensor input, float p, bool train) -> Tensor`) declares no alias.
Export's decomposition returns `input.clone()` instead (torch/_decomp: `dropout`), so
the write below lands in a copy: the exported program has no mutation of x (its
signature lists none), and the caller's x keeps its old values where eager overwrote
them. The returned values agree; what differs is the input after the call: the
aliasing oracle sees the signature without the mutation (exir.aliasing E4) and the
result oracle the input's values after the call (exir.runtime-result). Found by the fixes-on EXIR
campaign (seed 2026): `dropout_eval` followed by `copy_` on its result.

The other direction shows on an output: `v = F.dropout(x, training=False)` returned, and
x then written in place through another view (`x.reshape(-1).mul_(1.5)`), is the new x in
eager (v is x) and the old x in the exported program (v is a copy). The lane recognises
it by running the program again with eval dropout returning a copy
(fuzz/backends/exir/emulate.py, "dropout-eval-copy"): when that gives what the runtime
gave, the divergence is this bug (fact `matches_eager_with`, pattern 3). Found by the
fault-benchmark nights of 2026-12-05 (seed 4, without the plugin).
"""

import torch
import torch.nn.functional as F


def program(x, y):
    v = F.dropout(x, p=0.0, training=False)
    v.copy_(y * 2.0)
    return (v + 1,)


def calls():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4))]


LANES = ("exir",)
EXPECT = ("exir.aliasing", "exir.runtime-result")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): eager mutates
# an input that the exported program does not, in a program that calls dropout (which
# reaches the edge program as a clone, so no fact names it; eager's identity return is
# dropout's own, and the other identity-returning ops declare their alias). A wrong
# value is the runtime's, or the edge program's where the runtime has no kernel for
# another op of the program (exir.edge-result: the decomposition is export's).
MATCHES = (
    {
        "kind": "exir.aliasing",
        "stage": "call",
        "details": r"eager mutates input \d+ but the exported program has no mutation for it",
        "source": r"\bdropout\(",
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"^input \d+ after the call \(mutation\): values differ",
        "source": r"\bdropout\(",
    },
    {
        "kind": "exir.*-result",
        "stage": "call",
        "details": r"^output \d+: values differ",
        "facts": {"matches_eager_with": "dropout-eval-copy"},
    },
)
# Searched the issue index for "dropout eval returns input alias export clone mutation
# lost": pytorch/pytorch#195422 (torch.compile drops an in-place mutation of an input made
# through F.dropout's identity return; closed) and the fix, pytorch/pytorch#185981
# ("Preserve no-op dropout identity in decomposition": the decomposition returns the input
# itself, and post-dispatch export then records the input mutation; fixes #160241). Its
# merge and release are not confirmed (torch 2.13.0 still clones); the open report of the
# root cause is pytorch/pytorch#115249 (AOTAutograd), the one UPSTREAM names.
UPSTREAM = "https://github.com/pytorch/pytorch/issues/115249"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Export loses in-place writes through F.dropout(x, training=False): decomposition clones"
DESCRIBE = """
In eager, `F.dropout(x, p, training=False)` (and `p=0`) returns `x` itself, so `v =
F.dropout(x, 0.0, False); v.copy_(y * 2.0)` overwrites the caller's `x`. The
`aten.dropout` decomposition in `torch/_decomp/decompositions.py` (`dropout`, torch
2.13.0 lines 1268-1275) returns `input.clone()` in that branch instead, so the exported
program writes into a copy: its graph signature lists no user-input mutation and `x`
keeps its old values after the call, while the returned values agree. The reverse also
shows: if `x` is later written through another view, a returned `v` is the new `x` in
eager but the old one in the exported program. The same clone is behind #115249
(AOTAutograd) and #195422 (torch.compile drops the mutation). #185981 changes the
decomposition to return the input and updates the export test so the mutation appears in
the signature; torch 2.13.0 still clones.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/195422",
    "https://github.com/pytorch/pytorch/pull/185981",
    "https://github.com/pytorch/pytorch/pull/177774",
    "https://github.com/pytorch/pytorch/pull/115258",
    "https://github.com/pytorch/pytorch/issues/160241",
    "https://github.com/pytorch/pytorch/pull/117879",
    "https://github.com/pytorch/pytorch/pull/139231",
)
# Searched again on 2026-12-06 (issue and code indexes): "Preserve no-op dropout
# identity in decomposition"; "export dropout eval mode returns input alias clone in-
# place mutation lost"; "dropout decomposition clones input when train=False, aliasing
# differs from eager, in-place mutation of dropout output"; "#185981 dropout identity
# merged revert"; "torch.compile silently drops in-place mutation of input through
# F.dropout identity return fixed nightly"; "[XPU alignment] pytorch/pytorch Preserve
# no-op dropout identity in decomposition"; "torch.export dropout training=False copy_
# mutation of input missing from graph signature user_inputs_to_mutate". Found:
# https://github.com/pytorch/pytorch/issues/115249.
# Checked 2026-12-06: this program's repro script (python -m fuzz repro) passes on the
# torch 2.14.1 wheel and fails on 2.13.0, so pytorch/pytorch#185981 shipped by 2.14.1.
FIXED_IN = "torch 2.14.1"
