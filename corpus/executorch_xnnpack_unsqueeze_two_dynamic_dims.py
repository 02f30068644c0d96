"""Known upstream bug (ExecuTorch 1.5.1, XNNPACK partitioner): the partitioner takes an
unsqueeze whose output has two dynamic dims, and lowering then fails.

`x.unsqueeze(-1)` of an `(n, m)` input with both dims dynamic. `UnsqueezeCopyConfig`
(backends/xnnpack/partition/config/generic_node_configs.py, added by
pytorch/executorch#19261 to "mirror UnsqueezeVisitor's constraint") accepts an
unsqueeze on the trailing dim, but the visitor (backends/xnnpack/operators/op_squeeze.py)
also requires at most one dynamic dim in the output, and raises "XNNPACK reshape only
supports 1 dynamic dimension. This may occur when " from `to_edge_transform_and_lower`
(xnnpack.crash at to_edge_transform_and_lower; eager returns the `(n, m, 1)` view).
`ViewCopyConfig` checks the same limit and leaves such reshapes to the portable kernels;
the unsqueeze config does not. It also breaks programs that never unsqueeze:
`torch.einsum("ij,kj->ik", x, x)` with both dims of `x` dynamic decomposes into an
`unsqueeze_copy(x, 2)` (variant einsum.py). Found by the XNNPACK lane's first nights
(2026-12-07, a program with einsum, interpolate and both dims of the input dynamic).
"""

import torch


def program(x):
    return (x.unsqueeze(-1),)


def calls():
    return [(torch.randn(4, 3),), (torch.randn(6, 5),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (2, 8), 1: (2, 8)}}
EXPECT = ("xnnpack.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): the visitor's own words, raised while lowering (the
# view_copy visitor has the same words, but ViewCopyConfig never hands it such a node).
MATCHES = (
    {
        "kind": "xnnpack.crash",
        "stage": "to_edge_transform_and_lower",
        "details": r"XNNPACK reshape only supports 1 dynamic dimension",
    },
)
# Searched the issue index for "XNNPACK reshape only supports 1 dynamic dimension
# unsqueeze partitioner dynamic shapes": found #19261 (the PR that added the config) and
# #7959 (static_reshape's one-dynamic-dim limit), no report of this failure. The config
# and the visitor are unchanged on pytorch/executorch main (2026-08-22).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "XNNPACK partitioner takes an unsqueeze_copy with two dynamic dims, then lowering fails"
DESCRIBE = """
Exporting `x.unsqueeze(-1)` with both dims of `x` dynamic and lowering it with
`to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])` raises
`RuntimeError: XNNPACK reshape only supports 1 dynamic dimension. This may occur when `
(from `UnsqueezeVisitor.define_node`, backends/xnnpack/operators/op_squeeze.py). Eager
returns an `(n, m, 1)` tensor. `UnsqueezeCopyConfig.check_constraints` (added in #19261)
checks the visitor's trailing-dim rule but not its one-dynamic-dim rule, so the
partitioner takes a node the visitor cannot serialize; `ViewCopyConfig` checks the
same limit and leaves such reshapes to the portable kernels. `torch.einsum("ij,kj->ik", x,
x)` with both dims of `x` dynamic fails the same way through the `unsqueeze_copy` of its
decomposition. Rejecting outputs with more than one dynamic dim in `UnsqueezeCopyConfig`
(as `ViewCopyConfig` does) would fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/19261",
    "https://github.com/pytorch/executorch/pull/7959",
)
