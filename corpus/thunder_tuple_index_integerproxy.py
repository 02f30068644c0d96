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
