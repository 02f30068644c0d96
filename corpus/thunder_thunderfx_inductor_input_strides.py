"""Known upstream bug (lightning-thunder 0.2.6, ThunderFX): an Inductor part fed a
Thunder part's output fails Inductor's stride check.

`torch.addmm(x.sum(), torch.einsum("ij,kj->ik", x, x), x)`: ThunderFX gives `einsum` (and
`sum`) to Thunder and `addmm`, which Thunder does not take, to Inductor. 0.2.6 compiles the
Inductor part inside the splitter from the fake example values, whose strides are the ones
PyTorch's `einsum` would give (`(1, 2)` here); Thunder's `einsum` returns a contiguous
`(2, 1)` tensor, and the compiled part's input guard raises "AssertionError: expected size
2==2, stride 1==2 at dim=0; ... Error in op: input" (thunderfx.crash at call[0]; eager
returns the product). Upstream fixed it after 0.2.6: Lightning-AI/lightning-thunder#2689
("Delay Inductor until we get real input tensors", for #2680) compiles the Inductor parts on
their first real inputs. Found by the ThunderFX lane's first 1,000-program campaign
(2026-12-07), and by its fault nights through our custom op `bmul`.
"""

import torch


def program(x):
    return (torch.addmm(x.sum(), torch.einsum("ij,kj->ik", x, x), x),)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunderfx",)
EXPECT = ("thunderfx.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): Inductor's input stride check, in a program ThunderFX
# split between Thunder and Inductor.
MATCHES = (
    {
        "kind": "thunderfx.crash",
        "details": r"AssertionError: expected size \d+==\d+, stride \d+==\d+ at dim=\d+"
        r"[\s\S]*Error in op: input",
        "facts": {"ops": "inductor:*"},
    },
)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/2680"
FIXED_IN = "main (unreleased)"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "ThunderFX: Inductor fallback part fails its input stride check on a Thunder output"
DESCRIBE = """
`thunderfx(lambda x: torch.addmm(x.sum(), torch.einsum("ij,kj->ik", x, x), x),
dynamic=True)(torch.randn(2, 3))` raises `AssertionError: expected size 2==2, stride 1==2
at dim=0; expected size 2==2, stride 2==1 at dim=1 Error in op: input`. The Inductor part
(`addmm`) was compiled from the fake strides of `einsum`'s output, and Thunder's `einsum`
returns another layout. This is #2680, fixed on main by #2689 (Inductor parts compiled on
their first real inputs); lightning-thunder 0.2.6 still has it.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/pull/2689",)
