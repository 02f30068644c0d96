"""Known upstream limitation (Thunder 0.2.6, any cache): an einsum result is laid out
transposed, so `.contiguous()` of it copies where eager's returns it itself.

`v = torch.einsum("i,j->ij", x, x)` is contiguous in eager. Thunder decomposes this
einsum into `reshape(x, (n, 1))`, `mul` and `permute(1, 0)`, and the torch executor runs
the permute as a view: the same values, in a transposed (column-major) layout. Thunder's
trace does not model strides, so nothing restores eager's layout. `v.contiguous()`, which
returns its operand itself when it is already contiguous, then returns `v` in eager and a
copy in Thunder: outputs that are views of `v` and of `v.contiguous()` (`v[0]` next to
`v.contiguous().view(-1)`) share storage in eager and not in Thunder (thunder.aliasing at
call[0]: "storage sharing differs from eager: missing [(('out', 1), ('out', 0))]"; the
default cache gives the same), and a write through one no longer shows in the other. The
values are right. Found by a fault-benchmark baseline night (seed 2, 2026-12-04, at
`23aaa41`): `v5 = torch.einsum('i,j->ij', x0, x0)` whose `v5[x4 % v5.shape[0]]` and the
`torch.tensor_split` pieces of `v5.contiguous().view(...)` were returned; fixes on or off
alike.

Upstream: Thunder keeps no strides in its trace by design: "we did identify that having a
stride semantics in the graph is useful, but it's very hard to do it right and
efficiently" (Lightning-AI/lightning-thunder#135, closed), and a later experiment to track
them for `full_like` (Lightning-AI/lightning-thunder#2688) was closed; Lightning-AI/
lightning-thunder#2216 (open) reviews which ops return views. No report of einsum's
layout or of `contiguous()` aliasing found (searched "thunder einsum output
non-contiguous permute strides", "thunder output strides differ from eager contiguous
copy aliasing"). Eager's own einsum returns a transposed layout for some equations
(pytorch/pytorch#161729, fixed for common cases by pytorch/pytorch#161755).
"""

import torch


def program(x):
    v = torch.einsum("i,j->ij", x, x)
    return (v[0], v.contiguous().view(-1))


def calls():
    return [(torch.randn(3),)]


LANES = ("thunder",)
EXPECT = ("thunder.aliasing",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this limitation in a divergence of any program (fuzz/known.py): two
# outputs that share storage in eager do not in Thunder, in a program that makes an
# einsum result contiguous.
MATCHES = (
    {
        "kind": "thunder.aliasing",
        "details": r"missing \[.*\('out', \d+\), \('out', \d+\)\)",
        "source": r"(\w+) = torch\.einsum\([^\n]*\n[\s\S]*?\b\1\.contiguous\(\)",
    },
)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/135"
CLASS = "limitation"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "einsum result keeps a transposed layout, so .contiguous() copies where eager returns self"
DESCRIBE = """
`v = torch.einsum("i,j->ij", x, x)` is contiguous in eager. Thunder decomposes this
einsum (thunder/torch/__init__.py:3571 in 0.2.6) into reshape, mul and `permute(1, 0)`,
and the torch executor runs the permute as a view, so the result has the right values
but a column-major layout. `v.contiguous()` then copies in Thunder, while in eager it
returns `v` itself. As a result, outputs such as `v[0]` and `v.contiguous().view(-1)`
share storage in eager but not under Thunder, and a write through one no longer shows in
the other. Thunder deliberately does not model strides in traces (#135), so this may be
accepted as a limitation. Having the einsum decomposition end in a layout-preserving
form, or mapping einsum to `torch.einsum` in the torch executor, would match eager for
the common equations.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/2688",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2216",
)
# Searched again on 2026-12-06 (issue and code indexes): "lightning-thunder strides
# semantics in the graph is useful but very hard to do it right and efficiently";
# "thunder output tensor strides differ from PyTorch memory format contiguous stride";
# "lightning-thunder TensorProxy strides stride information trace contiguous";
# "lightning-thunder full_like strides memory format preserve experiment; review which
# ops return views". Found: https://github.com/Lightning-AI/lightning-
# thunder/issues/135.
