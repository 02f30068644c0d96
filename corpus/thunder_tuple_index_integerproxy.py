"""Known upstream bug (Thunder 0.2.6, cache="symbolic values"): a tuple indexed by a size raises.

`(0.5, 1.5, 2.5)[x.shape[0] % 3]` picks a scale by the size of `x`. Under
`cache="symbolic values"` the size is an `IntegerProxy`, and so is `x.shape[0] % 3`.
Thunder's interpreter runs the subscript through its own sequence wrapper
(`thunder/core/interpreter.py`, the `__getitem__` of the tuple/list wrapper), which only
accepts a real `int` or a `slice` (`isinstance(uidx, int)`) although `IntegerProxy` has
`__index__`, and raises "TypeError: <class 'tuple'> indices must be integers or slices,
not <class 'thunder.core.proxies.IntegerProxy'>" (thunder.crash at call[0]; eager
returns `1.5 * x` for a size-4 `x`). The default cache ("constant values") runs it, as
the sizes are plain ints there; our fixes do not touch it (fixes on or off alike).

Why it matters: every generated program with a tuple lookup keyed by a size crashed on
the Thunder lane, hiding every other oracle on that program; the generator now keeps
`lookup_tuple` for the EXIR lane only (fuzz/ops/branches.py).
"""

import torch


def program(x):
    return ((0.5, 1.5, 2.5)[x.shape[0] % 3] * x,)


def calls():
    return [(torch.randn(4),), (torch.randn(5),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"indices must be integers or slices, not <class '\S*IntegerProxy'>",
    },
)
# Searched the issue index for "tuple indices must be integers or slices, not
# IntegerProxy", "IntegerProxy __index__ tuple subscript" and "symbolic values tuple
# getitem": no upstream report found (the nearest, Lightning-AI/lightning-thunder#2653,
# is the open milestone collecting symbolic-values limitations).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Symbolic values: indexing a tuple with a size-derived int raises TypeError (IntegerProxy)"
DESCRIBE = """
With `cache="symbolic values"`, `(0.5, 1.5, 2.5)[x.shape[0] % 3] * x` raises `TypeError:
<class 'tuple'> indices must be integers or slices, not <class
'thunder.core.proxies.IntegerProxy'>`. Eager returns `1.5 * x` for a size-4 `x`, and the
default cache runs it. The interpreter's sequence wrapper `__getitem__`
(`thunder/core/interpreter.py`) accepts only `isinstance(uidx, int)` or a `slice`. Its
comment `# might have been IntProxy, this should insert condition if not const` shows
that proxies were meant to take the int path. That was true when `IntegerProxy`
subclassed `int`, but since #286 ('Number proxies is not a number') it does not, even
though it defines `__index__`. Accepting an `IntegerProxy` there (and recording a static
constraint on its value, as `bool()` does) would restore the intended behaviour.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/286",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2653",
)
# Searched again on 2026-12-06 (issue and code indexes): "tuple indices must be integers
# or slices, not IntegerProxy thunder"; "thunder interpreter list getitem NumberProxy
# index symbolic values TypeError indices". Found: no report of this bug.
