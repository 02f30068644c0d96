"""Thunder's symbolic-values cache reuses an `a + b` trace after the broadcast changed.

The first call, (2, 2) + (1,), is traced with `b` broadcast along the last dim (its
size 1 stretched to 2). Thunder's broadcasting code decides that from the traced sizes
(`dim == 1`), but the decision never becomes a prologue check: the prologue only checks
ranks, dtypes and devices. The second call, (2, 1) + (8,), broadcasts the other way
round (the result is (2, 8)), yet it hits the cached entry and runs the trace built for
the first call: a wrong result (or a crash) without any error from the cache.

Why it matters: any `thunder.jit(fn, cache="symbolic values")` user whose inputs change
which dims are 1 between calls silently gets results computed for other shapes.

Seed bug (example 1 of the upstream issue). With fixes off this diverges at call[1]
(thunder.unsound-hit and/or thunder.wrong-result); fixes/thunder_symbolic_cache.py
replays the broadcast decisions in the prologue, so with fixes on it passes.
"""

import torch


def program(a, b):
    return a + b


def calls():
    return [
        (torch.randn(2, 2), torch.randn(1)),
        (torch.randn(2, 1), torch.randn(8)),
    ]


LANES = ("thunder",)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1525"
CLASS = "bug"
# What stock Thunder 0.2.6 shows (fixes off); used to recognise this bug when fuzzing
# finds it again.
FOUND = ("thunder.unsound-hit@call",)
# Other programs' forms of this bug are recognised by thunder_symbolic_cache_shape_branch.py's
# MATCHES (one registry entry per bug, so a campaign counts #1525 once).

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Symbolic values cache reuses an `a + b` trace after the broadcast direction changes"
DESCRIBE = """
With `cache="symbolic values"`, `a + b` traced for (2, 2) + (1,) broadcasts `b` along
the last dim. Thunder decides this from the traced sizes (`dim == 1`), but the decision
is never turned into a prologue check: the prologue only checks ranks, dtypes and
devices. A second call with (2, 1) + (8,), which broadcasts the other way (result (2,
8)), hits the cached entry and runs the trace built for the first shapes. The result is
wrong (or the call crashes) with no error from the cache. This is example 1 of #1525.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/issues/2653",)
VARIANT_OF = "thunder_symbolic_cache_shape_branch"
# Searched again on 2026-12-06 (issue and code indexes): "symbolic values cache prologue
# does not check shape branch broadcast wrong result lightning-thunder 1525". Found:
# https://github.com/Lightning-AI/lightning-thunder/issues/1525.
