"""Known upstream bug (Thunder 0.2.6, cache="symbolic values"): a branch on a slice's numel raises.

`if x[1:].numel() > 3` branches on the element count of a slice. Under
`cache="symbolic values"` that count is an `IntegerProxy` computed inside the trace (from
`x.shape[0] - 1`). The `bool()` of the comparison marks it static, so `unpack_inputs`
(thunder/core/jit_ext.py) tries to unpack it in the prologue as if it were an input, and
asserts: "AssertionError: [IntegerProxy name=i12, value=2, ...] has history None"
(thunder.crash at call[0]; eager returns `-x[1:]`). `x[::2].numel()`,
`x.reshape(-1).numel()` and the numel of some broadcast results fail alike, while
`x[1:].shape[0] > 3`, `math.prod(x[1:].shape) > 3` and `x.numel() > 3` work. The
default cache runs it; fixes on or off alike.

Why it matters: any `if` on the element count of a computed tensor crashes under
symbolic values. The generator branches on `math.prod(x.shape)` in both lanes
(`if_numel`) and keeps `x.numel()` for the EXIR lane only (`if_numel_method`,
fuzz/ops/branches.py), so this crash does not hide other Thunder findings.
"""

import torch


def program(x):
    v = x[1:]
    if v.numel() > 3:
        return (v * 2.0,)
    return (-v,)


def calls():
    return [(torch.randn(3),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"has history None",
        "source": r"\.numel\(\)",
    },
)
# Searched the issue index for "has history None IntegerProxy unpack_inputs" and "symbolic
# values numel branch": no upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'Symbolic values: `if t[1:].numel() > 3` raises AssertionError "has history None"'
DESCRIBE = """
With `cache="symbolic values"`, a Python branch on the element count of a computed
tensor fails: `v = x[1:]; if v.numel() > 3: ...` with `x = torch.randn(3)` raises
`AssertionError: [IntegerProxy name=i12, value=2, ...] has history None` from
`unpack_inputs` in `thunder/core/jit_ext.py`. The element count is an `IntegerProxy`
computed inside the trace (from `x.shape[0] - 1`). Converting the comparison to `bool`
(`_general_jit_bool_lookaside`) marks it statically constrained. The constraint is then
propagated to a proxy that has no input provenance, and the prologue tries to unpack it
as an input. `x[::2].numel()` and `x.reshape(-1).numel()` fail alike. `x.numel() > 3`,
`x[1:].shape[0] > 3` and `math.prod(x[1:].shape) > 3` all work, and the default cache
runs the program. The static constraint should be traced back to the input sizes that
the count is derived from (as it is for `shape[0]`), not to the derived proxy itself.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/1257",
    "https://github.com/Lightning-AI/lightning-thunder/issues/925",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2653",
)
# Searched again on 2026-12-06 (issue and code indexes): "IntegerProxy has history None
# unpack_inputs AssertionError symbolic values"; "symbolic values numel assert jit_ext
# unpack_inputs history static NumberProxy"; "thunder symbolic values if tensor.numel()
# branch prologue unpack intermediate NumberProxy". Found: no report of this bug.
