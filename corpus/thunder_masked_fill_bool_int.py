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
    # Where Thunder's decomposition runs (the Thunder-decompositions lane), `where` runs as
    # the prim with the dtype the trace recorded for bool x int, the weak int8.
    {
        "kind": "thunder.wrong-result",
        "details": r"output \d+: dtype torch\.int8, expected torch\.bool",
        "facts": {"ops": "*masked_fill"},
    },
    # Under ThunderFX an Inductor part compiled from the bool fake value reads the int64
    # result's bytes as bools (variants/thunder_masked_fill_bool_int/thunderfx_inductor_*).
    {
        "kind": "thunderfx.wrong-result",
        "details": r"output \d+: values differ",
        "facts": {"ops": ["*masked_fill", "inductor:*"], "dtypes": "bool"},
    },
)
# Searched the issue index for "thunder masked_fill bool tensor dtype int64" and
# "masked_fill boolean tensor integer fill value returns int64 thunder.jit": no report of
# the bool case. The nearest, Lightning-AI/lightning-thunder#1083 (int64 filled with a
# float returned float32), was fixed by #1085 ("`masked_fill` casts `value` to `a.dtype`",
# merged as commit 3c6e9d1e2 on 2024-09-03, first released in 0.2.1; the issue index's
# copies of #1083 and #1085 still read open, from before the merge), whose type test this
# case slips through.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "masked_fill of a bool tensor with a Python int returns int64 instead of bool"
DESCRIBE = """
`x.masked_fill(x, 0)` with a bool tensor `x` returns a bool tensor in PyTorch, but under
`thunder.jit` it returns an int64 tensor (`[0, 0, 0]` instead of `[False, False,
False]`). `masked_fill` in `thunder/torch/__init__.py` casts `value` to `a`'s number
type only when `utils._elementwise_type_promotion(a.dtype, value_dtype) == value_dtype`.
For a bool8 tensor and a Python `int`, the exact promotion table
(`thunder/core/utils.py`, `b8` row, `int` column) gives the weak `int8_`, which never
equals `int`. So the value is not cast, and `where(mask, 0, a)` promotes bool with int
to int64. The cast added for #1083 works for an int64 tensor filled with a float, and a
float value on a bool tensor (`0.0`) passes the test too; only the bool-with-int pair
falls through. Since `masked_fill` always returns `a`'s dtype in PyTorch, casting
`value` (or the result) to `a.dtype` unconditionally would cover every pair.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1083",
    "https://github.com/Lightning-AI/lightning-thunder/pull/1085",
)
# Searched again on 2026-12-06 (issue and code indexes): "masked_fill int64 tensor float
# value returns float32 thunder"; "thunder masked_fill bool tensor int value dtype
# int64". Found: no report of this bug.
