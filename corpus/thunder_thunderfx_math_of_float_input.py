"""Known upstream bug (lightning-thunder 0.2.6, ThunderFX): `math.exp`/`math.log1p`/
`math.floor` of a float argument raises under `thunderfx(..., dynamic=True)`.

`x * math.exp(n)` with a Python float `n`. Under `torch.compile(dynamic=True)` Dynamo
passes the float as a 0-d tensor and recovers it with `.item()`; the captured graph holds
`item = l_n_.item()` and `math_exp(item)` (its value unused: Dynamo multiplies `x` by the
constant it computed). ThunderFX gives the whole graph to Thunder, where `item()` is a
number proxy without a value, and `math.exp` of it calls `float()` on the proxy:
"TypeError: float() argument must be a string or a real number, not 'NoneType'"
(thunder/core/proxies.py `__float__`; thunderfx.crash at call[0]). Eager returns `x *
7.389` for `n = 2.0`; `thunder.jit` of the same function runs, and so does
`thunderfx(..., dynamic=False)`. `math.sqrt` runs (Dynamo turns it into
`torch._sym_sqrt`); `math.floor` raises the `int()` form (variant floor.py). Found by the
ThunderFX lane's first nights (2026-12-07), on every seed.
"""

import math

import torch


def program(x, n):
    return (x * math.exp(n),)


def calls():
    return [(torch.randn(3), 2.0), (torch.randn(4), 0.5)]


LANES = ("thunderfx",)
EXPECT = ("thunderfx.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): a number proxy without a value converted by float()
# or int() while Thunder traces a ThunderFX partition.
MATCHES = (
    {
        "kind": "thunderfx.crash",
        "details": r"TypeError: (float|int)\(\) argument must be a string.* not 'NoneType'",
    },
)
# Searched the issue index for "thunderfx dynamic float input item math.exp TypeError float()
# argument must be a string or a real number, not 'NoneType' proxies __float__" and
# "thunderfx math function on Tensor.item unbacked float splitter NumberProxy value None
# dynamic=True": no report found (#2429 is about nodes without example_value).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "ThunderFX (dynamic=True): math.exp of a float argument raises TypeError in float()"
DESCRIBE = """
`thunderfx(lambda x, n: x * math.exp(n), dynamic=True)(torch.randn(3), 2.0)` raises
`TypeError: float() argument must be a string or a real number, not 'NoneType'` from
`thunder/core/proxies.py` (`__float__`). Eager returns `x * 7.389`; `thunder.jit` of the
same function and `thunderfx(..., dynamic=False)` run. Dynamo passes the float argument as
a 0-d tensor, and the graph it hands to ThunderFX reads it back with `.item()` and calls
`math_exp(item)` (the result is unused: the multiplication uses the constant Dynamo
computed). ThunderFX keeps that node in the Thunder partition, where `item()` is a number
proxy with no value, so `math.exp` fails in `float()`. `math.log1p` fails the same way,
`math.floor` in `int()`; `math.sqrt` runs. Sending such nodes to the fallback (or giving
the proxy's `__float__` a clear "unsupported" error the splitter can act on) would fix it.
"""
