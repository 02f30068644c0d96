"""Known upstream bug (Thunder 0.2.6, symbolic values only): aliased view inputs of another
shape crash the computation with UnboundLocalError.

`b = a.view(3, 2)` shares `a`'s storage with another shape, and the program has an
in-place op, so Thunder's alias handling replaces `b` by `prims.reshape(a, b.shape)`.
Under `cache="symbolic values"` `b.shape` is `(i2, i3)`, sizes of `b`; once `b` is
replaced, the computation no longer takes `b` or its sizes as inputs, yet the reshape
still reads them: the first call raises "UnboundLocalError: cannot access local variable
'i2'" (thunder.crash at call[0]). The default cache bakes in (3, 2) and runs fine, so
the lane's control agrees with eager; it is not a cache decision (a single fresh call),
and fixes/thunder_symbolic_cache.py does not touch it.
"""

import torch


def program(a, b):
    return (b.exp().add_(1), a * 1)


def calls():
    base = torch.randn(2, 3)
    return [(base, base.view(3, 2))]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"UnboundLocalError: cannot access local variable",
        "data": {"control": "agrees with eager"},
        "facts": {"inputs": "*-views"},
    },
)
UPSTREAM = None  # no upstream report found
CLASS = "bug"
