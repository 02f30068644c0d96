"""Thunder's symbolic-values cache reuses a shape-branch trace after the branch flipped.

`tuple(a.shape) == (2, 2)` is evaluated on the traced sizes while tracing the first call
(a is (2, 2): the branch returns `a`). The trace records `prims.eq(i0, 2)` and
`prims.eq(i1, 2)`, but those comparisons are not propagated to the prologue, so the
second call, a of shape (3, 2), hits the same cache entry and returns `a` where eager
returns `b`.

Why it matters: a Python `if` on a tensor's shape is the most common way user code
specialises on shapes; under cache="symbolic values" it silently takes the branch of
whichever call was traced first.

Seed bug (example 0 of the upstream issue). With fixes off this diverges at call[1]
(thunder.unsound-hit and/or thunder.wrong-result); fixes/thunder_symbolic_cache.py
replays the shape decisions in the prologue, so with fixes on it passes.
"""

import torch


def program(a, b):
    if tuple(a.shape) == (2, 2):
        return a
    else:
        return b


def calls():
    return [
        (torch.randn(2, 2), torch.randn(3)),
        (torch.randn(3, 2), torch.randn(3)),
    ]


LANES = ("thunder",)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1525"
CLASS = "bug"
# What stock Thunder 0.2.6 shows (fixes off); used to recognise this bug when fuzzing
# finds it again.
FOUND = ("thunder.wrong-result@call", "thunder.aliasing@call", "thunder.unsound-hit@call")
# Any form of this bug in another program (fuzz/known.py): the stock symbolic-values cache
# served a trace that a fresh trace of the call contradicts, or a result (or, on a cache
# hit, an exception) that the default cache gets right. With the fix applied
# (symbolic_cache "fixed") none of this matches: a cache divergence there is a new bug.
MATCHES = (
    {"kind": "thunder.unsound-hit", "stage": "call", "data": {"symbolic_cache": "stock"}},
    {
        "kind": "thunder.wrong-result",
        "stage": "call",
        "data": {"symbolic_cache": "stock", "control": "agrees with eager"},
    },
    {
        "kind": "thunder.aliasing",
        "stage": "call",
        "data": {"symbolic_cache": "stock", "control": "agrees with eager"},
    },
    {
        "kind": "thunder.crash",
        "stage": "call",
        "data": {"symbolic_cache": "stock", "control": "agrees with eager", "cache_hit": True},
    },
)

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Symbolic values cache ignores shape comparisons: a shape branch reuses a stale trace"
DESCRIBE = """
With `cache="symbolic values"`, `if tuple(a.shape) == (2, 2): return a else: return b`
traced with `a` of shape (2, 2) records `b3 = prims.eq(i0, 2)` and `b4 = prims.eq(i1,
2)` in the computation trace. Those comparisons are not propagated to the prologue, so a
second call with `a` of shape (3, 2) hits the same cache entry and returns `a` where
eager returns `b`. A Python `if` on a tensor's shape is the usual way user code
specialises on shapes; under symbolic values it silently takes the branch of whichever
call was traced first. This is example 0 of #1525. Broadcasting decisions (example 1)
have the same problem.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/issues/2653",)
# Searched again on 2026-12-06 (issue and code indexes): "symbolic values cache prologue
# does not check shape branch broadcast wrong result lightning-thunder 1525". Found:
# https://github.com/Lightning-AI/lightning-thunder/issues/1525.
