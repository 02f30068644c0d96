"""Known upstream bug (Thunder 0.2.6, symbolic values): `math.floor` of a float input raises.

`x * math.floor(s)` with `s` a Python float. Under `cache="symbolic values"` `s` is a
`FloatProxy`; `math.floor(s)` calls `FloatProxy.__floor__`, which records `prims.floor`
in the trace, and no executor implements `prims.floor` on numbers (the Python executor's
`floor` is commented out in `thunder/executors/pythonex.py`): "RuntimeError: Failed to
find an executor for bound symbol bsym=i3 = prims.floor(i2)" (thunder.crash at call[0];
eager returns `2 * x`). `math.ceil` fails the same way; `math.trunc(s)` raises "TypeError:
'NoneType' object is not callable" and `round(s)` "Unexpected number output type". An int
`s` works (after an int call, stock Thunder, which does not check number types, even
serves a float `s` from the int entry instead of crashing). The default cache runs all of
them; fixes on or off alike.

Why it matters: rounding a scalar argument (`math.floor(scale * n)`) is ordinary model
code, and under symbolic values it fails as soon as the value is a float. The generator
keeps `math.floor`/`math.ceil` of scalar number inputs for the EXIR lane only
(`math_round`, fuzz/ops/numbers.py), so this crash does not hide other Thunder findings.
"""

import math

import torch


def program(x, s):
    return (x * math.floor(s),)


def calls():
    return [(torch.randn(3), 2.5), (torch.randn(3), 3.5)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Failed to find an executor for bound symbol bsym=\w+ = prims\.(floor|ceil)\(",
    },
)
# Searched the issue index for "Failed to find an executor for bound symbol prims.floor"
# and "math.floor FloatProxy symbolic values": no upstream report found.
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/pull/2779"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "math.floor/math.ceil of a float input fail under symbolic values: no executor for floor"
DESCRIBE = """
With `cache="symbolic values"`, `def f(x, s): return (x * math.floor(s),)` called with a
float `s` fails in Thunder 0.2.6 with "RuntimeError: Failed to find an executor for
bound symbol bsym=i3 = prims.floor(i2)". `FloatProxy.__floor__` records `prims.floor` on
a number, but no executor implements the number version: the Python executor's
floor/ceil/trunc/round are commented out (thunder/executors/pythonex.py:301 in 0.2.6).
`math.ceil` fails the same way, `math.trunc` raises "TypeError: 'NoneType' object is not
callable", and `round` raises "Unexpected number output type". The default cache runs
all of them. This is fixed on main by #2779, which registers pythonex implementations of
ceil/floor/trunc/round for numbers and tests them under `cache="symbolic values"`, but
no release contains it yet.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/issues/2736",)
FIXED_IN = "main (unreleased)"
# Searched again on 2026-12-06 (issue and code indexes): "Failed to find an executor for
# bound symbol prims.floor FloatProxy math.floor"; "Enhance symbolic arithmetics";
# "lightning-thunder symbolic values math.floor math.ceil NumberProxy pythonex
# executor"; "Lightning-AI lightning-thunder pull request symbolic values ceil floor
# round trunc pythonex register_implementation NumberProxy __floor__"; "git: git show
# bb9e1509 (#2779) pythonex.py, tests/test_elementwise.py; git tag; PyPI list". Found:
# https://github.com/Lightning-AI/lightning-thunder/pull/2779.
