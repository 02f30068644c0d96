"""Known upstream bug (Thunder 0.2.6, any cache): IndexError when aliased inputs follow unused ones.

`a` and `b` are the same tensor; `u` and `a` are unused, and `b.exp().add_(1)` is an
in-place op, so Thunder runs its input-alias handling. The prologue's cache info records
which *call* arguments share storage: `alias_tensor_indices = "1,2"` (positions in the
flattened call arguments). `replace_args_with_alias_map` then indexes the *computation
trace's* arguments with those positions, but the computation only takes the inputs it
uses, here `(b,)`: `flat_args[1]` raises "IndexError: list index out of range" before
anything runs (thunder.crash at call[0]; eager returns exp(b) + 1). Without `u` the
positions are "0,1", `flat_args[0]` happens to exist, and the call works.

Upstream closed #1236 (same error: an unused input that is a view of another one); the
0.2.6 code skips out-of-range positions only for the *other* members of a group
(`idx < len(flat_args)`), not for the first one, and the positions still refer to the
call's arguments (see thunder_alias_index_shift.py for the silent form of the same
mismatch). Fixes on or off and the default cache all fail the same way.
"""

import torch


def program(u, a, b):
    return (b.exp().add_(1),)


def calls():
    t = torch.randn(3)
    return [(torch.randn(3), t, t)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"IndexError: list index out of range",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "same-tensor"},
    },
    # Two disjoint views of one storage are an alias group too (Thunder groups inputs by
    # storage); and ThunderFX gives each partition to thunder.jit, whose inputs are the
    # partition's: the same line raises there (the ThunderFX lane's first campaign,
    # 2026-12-07: its traceback ends at update_aliases.py:69, `flat_args[indices[0]]`).
    {
        "kind": "thunder.crash",
        "details": r"IndexError: list index out of range",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "disjoint-views"},
    },
    {
        "kind": "thunderfx.crash",
        "details": r"IndexError: list index out of range",
        "facts": {"inputs": "*-*"},
    },
)
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "IndexError in replace_args_with_alias_map when aliased inputs follow an unused input"
DESCRIBE = """
`def f(u, a, b): return (b.exp().add_(1),)` called as `f(torch.randn(3), t, t)` raises
"IndexError: list index out of range" in Thunder before anything runs; eager returns
exp(t) + 1. The prologue records the storage-sharing inputs by their positions in the
flattened call arguments (`alias_tensor_indices = "1,2"`), but
`replace_args_with_alias_map` (thunder/core/update_aliases.py:69 in 0.2.6) indexes the
computation trace's arguments, which are only `(b,)`, with `flat_args[indices[0]]`.
#1236 reported the same IndexError for a trailing unused view, and #1246 fixed it by
skipping out-of-range positions for the non-first group members only (`idx <
len(flat_args)`). The first member is still indexed without a check, and the positions
still refer to the call arguments rather than the computation's, which also makes the
alias handling silently merge the wrong inputs when the shifted positions stay in range.
main has the same code (update_aliases.py:80-81).
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1236",
    "https://github.com/Lightning-AI/lightning-thunder/pull/1246",
    "https://github.com/Lightning-AI/lightning-thunder/issues/1172",
)
# Searched again on 2026-12-06 (issue and code indexes): "lightning-thunder IndexError
# list index out of range replace_args_with_alias_map unused input view"; "[inplace]
# IndexError function with inplace operation and aliased inputs unused view thunder";
# "thunder alias_tensor_indices positions computation trace args unused input wrong
# tensor replaced aliased inputs silent wrong result"; "git: git log -S 'idx <
# len(flat_args)' (3a1bf2d6 = PR #1246)". Found: no report of this bug.
