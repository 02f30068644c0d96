"""Known upstream bug (Thunder 0.2.6, any cache): `Tensor.copy_` rejects a broadcasting source.

In PyTorch `dst.copy_(src)` broadcasts `src` to `dst`'s shape. Thunder's `copy_` requires
equal shapes and raises "Shapes were expected to be the same" at trace time, so a program
that eager runs fine cannot be jitted (thunder.crash). Found by the Thunder lane on
generated programs, with fixes on and off; the default cache fails the same way.
"""

import torch


def program(a, b):
    return (a.copy_(b * 2.0),)


def calls():
    return [(torch.randn(2, 5, 3), torch.randn(1, 3))]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Shapes were expected to be the same",
        "facts": {"at": "copy_"},  # the program line Thunder raised in calls copy_
    },
)
# Thunder's copy_ requires equal shapes where torch broadcasts (open):
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1860"
CLASS = "bug"
