"""Known upstream bug (Thunder 0.2.6, any cache): disjoint views of one base are merged.

`a` and `b` are the two halves of one tensor. Thunder's alias handling groups inputs
that share storage and, when they have the same number of elements, replaces every use
of `b` by a reshape of `a` (`replace_args_with_alias_map`), as if they were the same
memory. So `a.add_(b)` computes `a + a`: the caller's tensor is silently corrupted.
Found by this harness (thunder.aliasing: input 0 after the call differs from eager); the
default cache shows it too, so it is not a cache bug and our fixes do not touch it.
Related upstream work on aliased view inputs: Lightning-AI/lightning-thunder#2756, #2760.
"""

import torch


def program(a, b):
    a.add_(b)
    return (a * 1,)


def calls():
    base = torch.randn(3, 8)
    return [(base[:, :4], base[:, 4:])]


LANES = ("thunder",)
EXPECT = ("thunder.aliasing", "thunder.wrong-result")
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# Any program called with two disjoint views of one storage (the observed input structure,
# fuzz/facts.py) whose input mutation (or a result computed from it) differs from eager,
# under the default cache too.
MATCHES = (
    {
        "kind": "thunder.aliasing",
        "details": r"\(mutation\)",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "disjoint-views"},
    },
    {
        "kind": "thunder.wrong-result",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "disjoint-views"},
    },
)
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/pull/2760"
CLASS = "bug"
