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
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"'IntegerProxy' object has no attribute 'shape'",
    },
)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1236"
CLASS = "bug"
