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

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Tensor.copy_ rejects a source that broadcasts to the destination's shape"
DESCRIBE = """
In PyTorch `dst.copy_(src)` requires only that `src` is broadcastable to `dst`.
Thunder's `copy_` (thunder/torch/__init__.py:248-256) converts the dtype and calls
`prims.copy_` directly, and `copy__meta` (thunder/core/prims.py:4331 in 0.2.6, same on
main) calls `check_same_shape`. As a result, `a.copy_(b * 2.0)` with `a` of shape (2, 5,
3) and `b` of shape (1, 3) fails at trace time with "Shapes were expected to be the
same" where eager runs. This is the shape half of #1860. Expanding the source to the
destination's shape in `ltorch.copy_` before calling the prim would fix it.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/issues/1084",)
# Searched again on 2026-12-06 (issue and code indexes): "thunder copy_ broadcast source
# shape Shapes were expected to be the same"; "lightning-thunder Tensor.copy_ does not
# support broadcasting"; "git: main thunder/core/prims.py copy__meta,
# thunder/torch/__init__.py _copy_". Found: https://github.com/Lightning-AI/lightning-
# thunder/issues/1860.
