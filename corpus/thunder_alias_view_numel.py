"""Known upstream bug (Thunder 0.2.6, any cache): an input and a smaller view of it cannot
be jitted.

Call[1] passes `a` (4, 3) and `b = a[:2]` (2, 3), which share storage, to a program with
an in-place op. Thunder's alias handling replaces `b` by `prims.reshape(a, b.shape)`,
which needs equal element counts (12 vs 6): "RuntimeError: Attempting to reshape
a.shape=(4, 3) to shape=(2, 3)" (thunder.crash at call[1]; the default cache fails the
same way). Upstream reworked aliased view inputs of different sizes in
Lightning-AI/lightning-thunder#2760.

Call[0] passes one (2, 3) tensor twice. With fixes off, `cache="symbolic values"` serves
call[1] from that entry: the prologue only checks *which* inputs share storage, and the
alias handling's decision that `b.shape == a.shape` (taken after tracing) was never
checked, so the stale trace computes with `a` in place of `b` and returns a (4, 3)
output 0 where eager returns (2, 3) (thunder.wrong-result, a cache bug). With fixes on,
fixes/thunder_symbolic_cache.py replays that decision, call[1] misses and fails like the
default cache: only the upstream crash remains.
"""

import torch


def program(a, b):
    return (b.exp().add_(1), a.sum())


def calls():
    t = torch.randn(2, 3)
    base = torch.randn(4, 3)
    return [(t, t), (base, base[:2])]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Attempting to reshape \w+\.shape=",
        "facts": {"inputs": "*-views"},
    },
)
# The report with the same "Attempting to reshape" error; PR #2760 reworked it later.
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1237"
CLASS = "bug"
# What stock Thunder 0.2.6 shows (fixes off); used to recognise the cache bug when fuzzing
# finds it again.
FOUND = ("thunder.wrong-result@call",)
