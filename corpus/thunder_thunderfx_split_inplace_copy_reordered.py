"""Known upstream bug (lightning-thunder 0.2.6, ThunderFX): a value read from an input
before the program copies into that input comes back with the copied values, when
ThunderFX splits the program.

`v1 = x + 1; v2 = torch.take_along_dim(x, (torch.arange(n) // 2)[:, None].expand_as(x),
dim=0); x.copy_(v1); return v2`. ThunderFX sends the `[:, None]` indexing to Inductor (split
reason EXCEPTION_PROXY_THUNDER_OP: "Failed while creating proxy for node with name:
getitem") and the rest to Thunder; the result `v2` then holds values of `x + 1` (for
`x[0, 0] = 1.541`, 2.541 where eager gives 1.541: thunderfx.wrong-result at call[0]).
`thunder.jit` of the same function is right, and so is the same program without the
split (an index built with `zeros_like`), or without the in-place copy. Found by the
ThunderFX lane's first 1,000-program campaign (2026-12-07).
"""

import torch


def program(x):
    v1 = x + 1.0
    v2 = torch.take_along_dim(x, (torch.arange(x.shape[0]) // 2)[:, None].expand_as(x), dim=0)
    x.copy_(v1)
    return (v2,)


def calls():
    return [(torch.randn(3, 1),), (torch.randn(3, 1),)]


LANES = ("thunderfx",)
EXPECT = ("thunderfx.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): a wrong value of a program that copies into an input,
# where ThunderFX split the graph for an indexing node.
MATCHES = (
    {
        "kind": "thunderfx.wrong-result",
        "details": r"values differ",
        "facts": {"ops": ["copy_", "inductor:getitem"]},
    },
)
# Searched the issue index for "thunderfx inplace copy_ input wrong result split
# inductor getitem" and "thunderfx mutation of input reordered across partitions": no
# report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "ThunderFX: value read from an input before an in-place copy_ into it sees the copy"
DESCRIBE = """
With `thunderfx(fn, dynamic=True)`, `v2 = torch.take_along_dim(x, (torch.arange(n) //
2)[:, None].expand_as(x), dim=0)` followed by `x.copy_(x + 1)` returns `v2` with the
values of `x + 1` (2.541 where eager gives 1.541 for `x[0, 0] = 1.541`). ThunderFX
splits the graph at the `[:, None]` indexing (split reason EXCEPTION_PROXY_THUNDER_OP,
"Failed while creating proxy for node with name: getitem"); `thunder.jit` of the same
function is right, and so are variants that are not split (an index from
`torch.zeros_like`) or do not copy into `x`. The read of `x` and the in-place write appear
to lose their order across the split.
"""
