"""Known upstream bug (Thunder 0.2.6, symbolic values): `arange` with a step traced one short.

`torch.arange(0, x.shape[0], 2)` of a 3-element `x` has 2 elements in PyTorch. Under
`cache="symbolic values"` the end is an IntegerProxy, and `clang.arange` computes the
length as `math.ceil((stop - start) / step)` on number proxies; Thunder 0.2.6 computes
`ceil` of a float number in int (`elementwise_type_promotion` returns `(int, int)` for the
NUMBER_TO_INT kind, thunder/core/utils.py), so the trace holds
`i = prims.ceil(prims.convert_element_type(1.5, int))`, a length of 1. The executed
`torch.arange` still returns 2 elements; only the trace's metadata is wrong, and every
decision taken on it goes the wrong way: `if evens.shape[0] == 1` takes the `* 10`
branch, and Thunder returns `[0, 20]` where eager returns `[1, 3]` (thunder.wrong-result
at call[0]). The default cache computes the length in Python and is right; fixes on or
off alike. Any end that the step does not divide shows it (a size, or an int number input
as the end).

Upstream computes in float and converts the result since "Enhance symbolic arithmetics"
(Lightning-AI/lightning-thunder#2779, merged 2025-12-12, after 0.2.6): `return
promotiontype, int` in `elementwise_type_promotion`. The harness recognises the bug by
re-running the sequence with that change (fuzz/backends/thunder/repairs.py,
"number-rounding"): a divergence that goes away then is this bug.

Found by the fault benchmark's flip plugin (tests/faults/thunder_flip_size1.py),
whose faulty fast path read the traced length of `index_select(v, 1, arange(0, n, 2))`
as 1 and skipped a flip; the same wrong length reaches any shape decision.
"""

import torch


def program(x):
    evens = torch.arange(0, x.shape[0], 2)
    if evens.shape[0] == 1:
        return (evens * 10,)
    return (evens + 1,)


def calls():
    return [(torch.randn(3),)]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the divergence
# goes away when Thunder rounds float numbers in float (the re-run of the Thunder lane's
# annotate step, fuzz/backends/thunder/repairs.py). A wrong length can also end in a crash
# (a reshape to the traced length).
MATCHES = (
    {"kind": "thunder.wrong-result", "data": {"repaired_by": "number-rounding"}},
    {"kind": "thunder.crash", "data": {"repaired_by": "number-rounding"}},
)
# Searched the issue index for "thunder arange symbolic values wrong length ceil" and
# "math.ceil NumberProxy truncates prims.ceil convert_element_type int": #2738 (symbolic
# arange, open) and PR #2779, which fixed the promotion on main; no report of the wrong
# length itself.
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/pull/2779"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Under symbolic values, arange with a non-dividing step records a length one too short"
DESCRIBE = """
`clang.arange` computes its length as `math.ceil((stop - start) / step)`
(thunder/clang/__init__.py:198). With `cache="symbolic values"` the stop is an
IntegerProxy, and in 0.2.6 the NUMBER_TO_INT promotion returned `(int, int)`
(thunder/core/utils.py:507), so the ceil is applied after converting the float quotient
to int: `prims.ceil(prims.convert_element_type(1.5, int))` = 1. For `torch.arange(0,
x.shape[0], 2)` with 3 elements, the trace records a 1-element tensor while the executed
`torch.arange` returns 2 elements. Shape-dependent control flow then takes the wrong
branch: `if evens.shape[0] == 1: return evens * 10` returns [0, 20] where eager returns
[1, 3]. The default cache computes the length in Python and is correct. Fixed on main by
#2779, which makes NUMBER_TO_INT compute in the promoted type (`return promotiontype,
int`); no release contains it yet.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/2736",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2738",
)
FIXED_IN = "main (unreleased)"
# Searched again on 2026-12-06 (issue and code indexes): "lightning-thunder symbolic
# values math.floor math.ceil NumberProxy pythonex executor"; "lightning-thunder Enhance
# symbolic arithmetics NUMBER_TO_INT ceil floor trunc round bitwise shift"; "Lightning-
# AI lightning-thunder pull request symbolic values ceil floor round trunc pythonex
# register_implementation NumberProxy __floor__"; "git: git show bb9e1509 (#2779)
# thunder/core/utils.py". Found: https://github.com/Lightning-AI/lightning-
# thunder/pull/2779.
