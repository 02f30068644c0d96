"""Known upstream bug (Thunder 0.2.6, any cache): `torch.arange(0)` is traced as a 0-d tensor.

`torch.arange(x.shape[0])[:, None]` with `x.shape[0] == 0` is a (0, 1) tensor in PyTorch.
Thunder's `arange` is the `iota` prim, whose meta (thunder/core/prims.py, `_iota_meta`)
sets `shape = () if length == 0 else (length,)`: the trace holds a 0-d tensor (one
element) where eager has an empty 1-d one, and indexing it with `[:, None]` raises
"IndexError: too many indices for tensor of dimension 0" (thunder.crash at call[0]; eager
returns an empty (0, 1) tensor). The default cache fails the same way; fixes on or off
alike. Patching `_iota_meta` to `(length,)` makes every form below run and agree with eager.

Every op whose Thunder decomposition (or whose index, built with `arange` of a dim's size)
meets `arange` of an empty dim fails, each with its own message:
  * gather, take_along_dim, scatter, scatter_add with an index `arange(d)[:, None]...`:
    "too many indices for tensor of dimension 0";
  * index_select and advanced indexing `x[arange(d)]` (Thunder's `take` meta): "Attempting
    to index a 0-length dimension {dim=} with a non-empty index" (sic: no f-string);
  * index_put (Thunder's clang `index_put` expands the values to the index's shape):
    "expand: the requested shape has too few dimensions!";
  * tril/triu on an empty last dim: Thunder's own decomposition builds its mask from
    `arange(ncols).unsqueeze(-2)`: "Dimension out of range (expected to be in range of
    [-1, 0], but got -2)" (an empty row dim passes by luck: `unsqueeze(-1)` of a 0-d
    tensor is valid, and the mask broadcasts);
  * diagonal with a diagonal of length 0 (clang `diagonal` indexes with two `arange`s):
    the `take` message above;
  * `arange(0).view(0, 1)`: "Attempting to reshape a.shape=() to shape=(0, 1)";
  * `F.embedding(arange(d), w).shape[1]`: the lookup of a 0-d index is traced 1-d, and
    reading its dim 1 raises "IndexError: <class 'tuple'> index out of range" (found by
    the default night of 2026-12-07; checked by patching `_iota_meta`).
`arange(0)` used elementwise, reduced or returned runs: the executed `torch.arange` is
right, only the trace's shape is wrong. Main (checked 2026-01-29) has the same `_iota_meta`.
Found by the generator's indexing and shape ops (fuzz/ops/indexing.py, shapes.py) on
inputs with an empty dim.
"""

import torch


def program(x):
    return (torch.arange(x.shape[0])[:, None],)


def calls():
    return [(torch.randn(0, 3),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the messages of
# a tensor traced as 0-d (or one element) where eager has an empty 1-d one. The empty dim
# may come from an input or from an intermediate (a split piece), so no `sizes` fact.
MATCHES = (
    {"kind": "thunder.crash", "details": r"too many indices for tensor of dimension 0"},
    {
        "kind": "thunder.crash",
        "details": r"Attempting to index a 0-length dimension .* with a non-empty index",
    },
    {
        "kind": "thunder.crash",
        "details": r"Dimension out of range \(expected to be in range of \[-1, 0\], but got",
    },
    {
        "kind": "thunder.crash",
        "details": r"expand: the requested shape has too few dimensions",
        "facts": {"at": "*index_put*"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Attempting to reshape \w+\.shape=\(\) to shape=\([^)]*\b0\b",
    },
    # Thunder's decomposition of indexing (run on the Thunder-decompositions lane) reshapes
    # the index it traced as one element to [1]; the executed index is empty.
    {"kind": "thunder.crash", "details": r"shape '\[1\]' is invalid for input of size 0"},
    # A shape read past the rank Thunder traced: a bare IndexError, so only with an empty
    # size at the call and an arange in the program.
    {
        "kind": "thunder.crash",
        "details": r"(?m)^thunder raised IndexError: <class 'tuple'> index out of range$",
        "facts": {"sizes": "empty"},
        "source": r"torch\.arange\(",
    },
    # ... and tril/triu's decomposition expands its mask, with an empty dim, to fewer dims.
    {
        "kind": "thunder.crash",
        "details": r"expand\(torch\.\w+\{\[\d+, 0\]\}, size=\[\d+\]\): the number of sizes",
    },
)
# Searched the issue index for "thunder arange length 0 shape () iota empty tensor",
# "_iota_meta shape = () if length == 0", "torch.arange(0) returns 0-dim tensor",
# "Attempting to index a 0-length dimension with a non-empty index" and "thunder tril triu
# empty tensor Dimension out of range": no upstream report found (the nearest,
# Lightning-AI/lightning-thunder#2738, asks for symbolic bounds in arange).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "torch.arange with length 0 is traced as a 0-d tensor instead of an empty 1-D tensor"
DESCRIBE = """
Thunder's `iota` meta (`_iota_meta`, thunder/core/prims.py:2941 in 0.2.6, unchanged on
main) sets `shape = () if length == 0 else (length,)`, so `torch.arange(0)` is recorded
as a 0-d tensor (one element) where PyTorch returns shape (0,). The executed
`torch.arange` is correct; only the trace metadata is wrong, and every op that reads the
shape fails. For example, `torch.arange(x.shape[0])[:, None]` with `x.shape[0] == 0`
raises "IndexError: too many indices for tensor of dimension 0" where eager returns a
(0, 1) tensor. The same happens in gather/take_along_dim/scatter with such an index, in
index_select and `x[arange(d)]` ('Attempting to index a 0-length dimension {dim=} with a
non-empty index', whose message is also missing its f-prefix in `take_meta`), in
index_put, tril/triu on an empty last dim, diagonal of length 0, and `arange(0).view(0,
1)`. Returning `(length,)` unconditionally fixes all of them.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/issues/2738",)
# Searched again on 2026-12-06 (issue and code indexes): "thunder torch.arange(0) empty
# tensor shape () iota length 0 zero-dim"; "lightning-thunder empty input tensor zero-
# size dimension gather index_select tril fails IndexError too many indices for tensor
# of dimension 0"; "git: git blame thunder/core/prims.py _iota_meta (line unchanged
# since 2023-08)". Found: no report of this bug.
