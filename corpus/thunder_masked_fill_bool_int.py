"""Known upstream bug (Thunder 0.2.6, any cache): a bool tensor masked_fill-ed with an int is int64.

`x.masked_fill(x, 0)` on a bool `x` returns a bool tensor in PyTorch (the result always
has `x`'s dtype). Thunder's `masked_fill` (thunder/torch/__init__.py) is
`where(mask, value, a)`, after casting `value` to `a`'s type when the promotion of `a`'s
dtype with `value`'s type is `value`'s type. For a bool `a` and a Python int that test
compares `_elementwise_type_promotion(bool8, int)`, which is the weak `int8_` dtype, with
the Python type `int`: never equal, so the value is not cast and `where` promotes
bool x int to int64. Thunder returns `[0, 0, 0]` int64 where eager returns
`[False, False, False]` (thunder.wrong-result at call[0]: "output 0: dtype torch.int64,
expected torch.bool"; the default cache gives the same). A float value (`0.0`) promotes
to `float`, passes the test and is cast to bool, so it runs; int64/int32/float16
tensors keep their dtype. Lightning-AI/lightning-thunder#1085 added the cast for #1083
(an int64 tensor filled with a float came back float32); the bool-with-int case still
falls through it, and main (checked 2026-01-29) has the same code. Found by the generator's
`masked_fill` op (fuzz/ops/indexing.py) on bool operands; fixes on or off alike.
"""

import torch


def program(x):
    return (x.masked_fill(x, 0),)


def calls():
    return [(torch.tensor([True, False, True]),)]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a bool result
# of a program with masked_fill comes back int64.
MATCHES = (
    {
        "kind": "thunder.wrong-result",
        "details": r"output \d+: dtype torch\.int64, expected torch\.bool",
        "facts": {"ops": "*masked_fill"},
    },
)
# Searched the issue index for "thunder masked_fill bool tensor dtype int64" and
# "masked_fill boolean tensor integer fill value returns int64 thunder.jit": no report of
# the bool case. The nearest, Lightning-AI/lightning-thunder#1083 (int64 filled with a
# float returned float32), was fixed by #1085, whose type test this case slips through.
UPSTREAM = None
CLASS = "bug"
