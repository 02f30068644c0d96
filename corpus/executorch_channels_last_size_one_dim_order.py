"""Known upstream bug (ExecuTorch 1.5.1): a channels-last copy of a tensor with size-1
dims is planned with a dim order that is neither channels-last nor contiguous, and the
runtime's copy kernel rejects it.

`x.expand(2, 1, 1, 2).contiguous(memory_format=torch.channels_last)`: the expanded value
(strides (0, 2, 2, 1)) is not channels-last, so export keeps a clone to channels-last,
which to_edge makes `dim_order_ops::_clone_dim_order(dim_order=[0, 2, 3, 1])`. Its output
has channels-last strides (2, 1, 2, 1), where C and H have size 1 and tie; ExecuTorch
derives the planned dim order from the strides alone (`dim_order_from_stride`, a stable
sort) and gets [0, 2, 1, 3]. At the call the kernel checks the output's dim order against
the one it was asked for: "[copy_ops_util.cpp:797] Check failed (out_dim_order[i] ==
dim_order_ref[i])", execute fails (error 0x12). Eager returns the values of the expand.
The same stride tie without a size-1 dim does not happen: (2, 3, 4, 5) runs.

Found by the fault-benchmark night of 2026-12-05 (seed 3, without the plugin): an
`expand` by a number input followed by `channels_last_back`. Upstream:
pytorch/executorch#22520 (open; the same derivation, for a depthwise conv weight), with
the fix in review as pytorch/executorch#22745 ("Fix dim_order derivation for
channels-last tensors with size-1 dims").
"""

import torch


def program(x):
    return (x.expand(2, 1, 1, 2).contiguous(memory_format=torch.channels_last),)


def calls():
    return [(torch.randn(1, 1, 1, 2),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): a dim-order copy's kernel finding its planned output
# in another dim order than it was asked for (the runtime's log names the check).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"\[copy_ops_util\.cpp:\d+\] Check failed \(out_dim_order\[i\] == "
        r"dim_order_ref\[i\]\)",
        "facts": {"ops": "dim_order_ops.*"},
    },
)
# Searched the issue index for "_clone_dim_order check__to_dim_order_copy_args
# out_dim_order dim_order_ref expand channels_last" and "dim_order_from_stride channels
# last size-1 dimension unsupported dim order": pytorch/executorch#22520 and its fix PRs
# #22533 (closed) and #22745 (open).
UPSTREAM = "https://github.com/pytorch/executorch/issues/22520"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Channels-last tensor with size-1 dims is planned with a dim order that the runtime rejects"
DESCRIBE = """
`x.expand(2, 1, 1, 2).contiguous(memory_format=torch.channels_last)` exports as a clone
to channels-last, which to_edge turns into
`dim_order_ops::_clone_dim_order(dim_order=[0, 2, 3, 1])`. Its output has channels-last
strides (2, 1, 2, 1), where C and H have size 1 and their strides tie with N and W.
`dim_order_from_stride` (exir/tensor.py) sorts by stride alone with a stable sort and
plans the tensor as [0, 2, 1, 3], so at run time the copy kernel rejects it:
"[copy_ops_util.cpp:797] Check failed (out_dim_order[i] == dim_order_ref[i])" and
`execute` fails with error 0x12. Eager returns the expanded values, and the same program
without a size-1 dim (e.g. (2, 3, 4, 5)) runs. This is the derivation reported in #22520
for a depthwise conv weight, here hit by an activation (a `_clone_dim_order` output),
not a constant.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/22745",
    "https://github.com/pytorch/executorch/pull/22533",
)
# Searched again on 2026-12-06 (issue and code indexes): "dim_order_from_stride
# channels-last size-1 dims wrong dim order"; "depthwise conv channels_last weight dim
# order (0, 2, 1, 3) tensor_is_default_or_channels_last_dim_order portable kernel
# rejects". Found: https://github.com/pytorch/executorch/issues/22520.
