"""Known upstream bug (Thunder 0.2.6, symbolic values): aliased inputs before a number crash.

`a` and `b` are the same tensor, `b` is unused, `n` is a Python int and `a.exp().add_(n)`
is in place, so Thunder runs its input-alias handling. The prologue records the *call*
positions of the inputs that share storage (`alias_tensor_indices` "0,1"), and
`replace_args_with_alias_map` (thunder/core/update_aliases.py) indexes the *computation
trace's* arguments with them; the computation takes only what it uses, `(a, n)`, so
position 1 is the number: "AttributeError: 'IntegerProxy' object has no attribute
'shape'" (thunder.crash at call[0]; eager returns exp(a) + 2). The root cause is the one
of corpus/thunder_alias_unused_input_crash.py (IndexError) and
corpus/thunder_alias_index_shift.py (silent); a number input turns it into this error,
under symbolic values only (the default cache makes `n` a constant). Fixes on or off
alike. Found by the generator once programs had number inputs.

A float number in that position raises the same with 'FloatProxy' (`a.exp().add_(2.0)`
here). A 1,000-program campaign showed that form with an unused *first* input:
`program(x0, x1, x2, n0, n1)` with x0 unused, x1 and x2 disjoint views of one base and
`x1.mul_(x2)`; the call positions "1,2" index the computation's `(x1, x2, n0, n1)`, and
position 2 is the float `n0` ("'FloatProxy' object has no attribute 'shape'").

The generator now lets only inputs the program uses alias each other (fuzz/calls.py),
so this known bug does not hide other findings.
"""

import torch


def program(a, b, n):
    return (a.exp().add_(n),)


def calls():
    t = torch.randn(3)
    return [(t, t, 2)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the number
# proxy the shifted position lands on, an int or a float input.
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"'(IntegerProxy|FloatProxy)' object has no attribute 'shape'",
    },
)
# The float form: searched the issue index for "'FloatProxy' object has no attribute
# 'shape' replace_args_with_alias_map" and "lightning-thunder alias_tensor_indices unused
# input number proxy has no attribute shape": no report beyond #1236 (the same position
# mismatch in replace_args_with_alias_map, thunder/core/update_aliases.py).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Alias handling treats a number input as an aliased tensor when an aliased input is unused"
DESCRIBE = """
With `cache="symbolic values"`, `def f(a, b, n): return (a.exp().add_(n),)` called as
`f(t, t, 2)` (a and b the same tensor, b unused) raises "AttributeError: 'IntegerProxy'
object has no attribute 'shape'" in Thunder 0.2.6, where eager returns exp(t) + 2. The
prologue records the storage-sharing inputs by their positions in the call arguments
("0,1"), but `replace_args_with_alias_map` (thunder/core/update_aliases.py:65-81)
indexes the computation trace's arguments, which are only `(a, n)`, so position 1 lands
on the number proxy and `arg_to_replace.shape` fails. A float gives the same error with
'FloatProxy'. Under the default cache `n` is baked in as a constant, so the position
happens to be out of range and is skipped. On main the same position mismatch remains;
`_can_be_reshaped` now calls `_numel()` on the number proxy first, so the message
probably changes.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1236",
    "https://github.com/Lightning-AI/lightning-thunder/pull/1246",
)
VARIANT_OF = "thunder_alias_unused_input_crash"
# Searched again on 2026-12-06 (issue and code indexes): "'IntegerProxy' object has no
# attribute 'shape' thunder"; "lightning-thunder IndexError list index out of range
# replace_args_with_alias_map unused input view"; "thunder alias_tensor_indices
# positions computation trace args unused input wrong tensor replaced aliased inputs
# silent wrong result". Found: no report of this bug.
