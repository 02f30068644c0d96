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

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "An input and a smaller view of it crash alias handling with 'Attempting to reshape'"
DESCRIBE = """
`def f(a, b): return (b.exp().add_(1), a.sum())` called with `a = torch.randn(4, 3)` and
`b = a[:2]` fails in Thunder 0.2.6 with "RuntimeError: Attempting to reshape a.shape=(4,
3) to shape=(2, 3)"; eager runs it. Because the inputs share storage and the function
has an in-place op, `replace_args_with_alias_map` (thunder/core/update_aliases.py:73-80
in 0.2.6) replaces every use of `b` with `prims.reshape(a, b.shape)`, and that reshape
needs equal element counts. This is the error reported in #1237. On main, #2716 first
skipped aliases whose numel differs, and #2760 now tracks them as view groups
(`_can_be_reshaped`, update_aliases.py:57-87), so main should no longer crash here. No
release contains those changes yet.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/2716",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2756",
    "https://github.com/Lightning-AI/lightning-thunder/pull/2760",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder Attempting to reshape
# a.shape to shape aliased inputs view different number of elements inplace";
# "lightning-thunder IndexError list index out of range replace_args_with_alias_map
# unused input view"; "git: git log 0.2.6..main -- thunder/core/update_aliases.py; git
# show ec21d730 (#2760), 93aa2540 (#2716)". Found: https://github.com/Lightning-
# AI/lightning-thunder/issues/1237.
