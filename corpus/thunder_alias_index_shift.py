"""Known upstream bug (Thunder 0.2.6, any cache): an unrelated input is merged with an aliased one.

`a` and `b` are the same tensor (zeros), `c` is a separate tensor (ones), and `a` is
unused. Thunder records the storage-sharing call arguments by position,
`alias_tensor_indices = "0,1"`, but `replace_args_with_alias_map` looks those positions
up in the computation trace's arguments, which drop the unused `a`: `(b, c)`. So it
"merges" `c` into `b` (the trace says "`c` is replaced by `b`") although `c` shares no
memory with anything, and computes `c.exp().add_(1)` from `b`: thunder returns
exp(0) + 1 = 2.0 for every element of output 0 where eager returns exp(1) + 1 = 3.718
(thunder.wrong-result at call[0]). The same position mismatch raises IndexError when
the shifted position runs past the end (thunder_alias_unused_input_crash.py).

Fixes on or off and the default cache all show it. Related upstream report (the crash
form, closed): Lightning-AI/lightning-thunder#1236; this silent form was not found
reported.
"""

import torch


def program(a, b, c):
    return (c.exp().add_(1), b * 1)


def calls():
    t = torch.zeros(3)
    return [(t, t, torch.ones(3))]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.wrong-result",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "same-tensor"},
    },
)
UPSTREAM = None  # related, the crash form (closed): https://github.com/Lightning-AI/lightning-thunder/issues/1236
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Input alias handling indexes computation args by call position, merging unrelated inputs"
DESCRIBE = """
When call arguments share storage, Thunder records their positions in the flattened
*call* arguments (`cache_info["alias_tensor_indices"]`, thunder/__init__.py:675 in
0.2.6), but `replace_args_with_alias_map` (thunder/core/update_aliases.py:65-81) uses
those positions to index the *computation trace's* flattened arguments, which only
contain the inputs the function uses. If an earlier input is unused, the positions shift
onto the wrong inputs. Example: `def f(a, b, c): return c.exp().add_(1), b * 1` called
as `f(t, t, torch.ones(3))` with `t = torch.zeros(3)`: the positions are "0,1" but the
computation takes `(b, c)`, so `c` (which shares memory with nothing) is replaced by `b`
(trace header: "`c` is replaced by `b`") and output 0 is 2.0 everywhere instead of
exp(1) + 1 = 3.718, with no error. main still indexes `flat_args` with the call
positions (update_aliases.py:79-82); mapping the positions through the prologue's
unpacking, or computing the alias groups from the computation's own inputs, would fix
it.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1236",
    "https://github.com/Lightning-AI/lightning-thunder/pull/1246",
    "https://github.com/Lightning-AI/lightning-thunder/issues/1172",
)
VARIANT_OF = "thunder_alias_unused_input_crash"
# Searched again on 2026-12-06 (issue and code indexes): "lightning-thunder IndexError
# list index out of range replace_args_with_alias_map unused input view"; "[inplace]
# IndexError function with inplace operation and aliased inputs unused view thunder";
# "thunder alias_tensor_indices positions computation trace args unused input wrong
# tensor replaced aliased inputs silent wrong result"; "thunder prologue orders
# arguments breaks aliasing relation a9 += 1 functionalization
# replace_args_with_alias_map"; "git: lightning-thunder main (1e22aacb, 2026-01-29)
# update_aliases.py / __init__.py alias_tensor_indices, git log -S 'idx <
# len(flat_args)'". Found: no report of this bug.
