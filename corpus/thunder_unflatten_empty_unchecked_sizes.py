"""Known upstream bug (Thunder 0.2.6, any cache): `unflatten` of an empty tensor does not
check that its sizes multiply up to the dim it unflattens.

`x.unflatten(1, (3, 1))` of a (0, 2) tensor raises in PyTorch ("unflatten: Provided sizes
[3, 1] don't multiply up to the size of dim 1 (2) in the input tensor"). Thunder's
`unflatten` (thunder/torch/__init__.py) checks only that `sizes` is non-empty and returns
`a.view(a.shape[:dim] + sizes + a.shape[dim + 1:])`. `view` compares element counts, 0
and 0, so Thunder returns a (0, 3, 1) tensor where eager raises (thunder.wrong-result).
On a non-empty tensor the counts differ and `view` raises, as eager does. The default
cache behaves alike.

Found by the fixes-on Thunder 1,000-program campaign of 2026-12-05. A generator rule bug
(fixed: fuzz.ops.spec.quotient) had drawn `v.unflatten(2, (3, v.shape[2] // 3))` of a
conv2d output of size 2, which eager rejects at every call; Thunder agreed until a call
made `v` empty. The generator now draws only sizes that divide, so a night meets this
only where a size is wrong at one call and the tensor is empty at it.
"""

import torch


def program(x):
    return (x.unflatten(1, (3, 1)),)


def calls():
    return [(torch.randn(0, 2),)]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): eager's
# unflatten size check, which Thunder returned past. On a non-empty tensor Thunder's view
# raises too, so a result where eager raised this message is the missing check.
MATCHES = (
    {
        "kind": "thunder.wrong-result",
        "details": r"eager raised \"RuntimeError: unflatten: Provided sizes \[[^\]]*\] don't "
        r"multiply up to the size of dim \d+ \(\d+\) in the input tensor\", thunder returned "
        r"a result",
    },
)
# Searched the issue index for "thunder unflatten sizes don't multiply up empty tensor no
# error reshape": no upstream report (the nearest, Lightning-AI/lightning-thunder#302,
# added `torch.unflatten` with the non-empty check only).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "unflatten does not check that sizes multiply to the dim size, so empty tensors pass"
DESCRIBE = """
`x.unflatten(1, (3, 1))` of a (0, 2) tensor raises in PyTorch ("unflatten: Provided
sizes [3, 1] don't multiply up to the size of dim 1 (2) in the input tensor"), but under
`thunder.jit` it returns a (0, 3, 1) tensor. Thunder's `unflatten`
(`thunder/torch/__init__.py`) checks only that `sizes` is non-empty and returns
`a.view(a.shape[:dim] + tuple(sizes) + a.shape[dim + 1:])`. `view` compares total
element counts, which are 0 and 0 for an empty tensor, so the wrong sizes are accepted.
On a non-empty tensor the counts differ and `view` raises, as eager does. Checking
`prod(sizes) == a.shape[dim]` (allowing one -1) before the view would match PyTorch.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/302",
    "https://github.com/Lightning-AI/lightning-thunder/issues/288",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder unflatten sizes don't
# multiply up to the size of dim empty tensor". Found: no report of this bug.
