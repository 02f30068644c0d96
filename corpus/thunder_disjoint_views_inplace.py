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
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Disjoint input views of one storage are merged as one tensor, corrupting in-place ops"
DESCRIBE = """
Thunder groups input tensors by `untyped_storage().data_ptr()`
(`_alias_tensor_of_args_kwargs_dict`, thunder/__init__.py:406-423), so two views of one
storage form an alias group even when they do not overlap. `replace_args_with_alias_map`
(thunder/core/update_aliases.py:68-81 in 0.2.6) then replaces every use of the second
view with the first one (or a reshape of it) whenever the element counts match, as if
they were the same memory. With `base = torch.randn(3, 8)`, `a = base[:, :4]`, `b =
base[:, 4:]` and `def f(a, b): a.add_(b); return (a * 1,)`, Thunder computes `a + a`, so
it silently writes wrong values into the caller's `base` and returns a wrong result. On
main `_can_be_reshaped` still compares only numel (update_aliases.py:57-65).
Substitution is only valid when the views cover the same elements (same storage offset
and strides up to a reshape); other members of a storage group should go through the
view-group handling added in #2760.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/2760",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2756",
    "https://github.com/Lightning-AI/lightning-thunder/issues/738",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder non-overlapping views
# same storage same numel replaced by reshape wrong result in-place input"; "lightning-
# thunder two slices of same base tensor passed as inputs add_ silently wrong aliasing
# storage data_ptr"; "thunder Attempting to reshape a.shape to shape aliased inputs view
# different number of elements inplace". Found: no report of this bug.
