"""Known upstream bug (ExecuTorch 1.5.1 portable kernels): a channels-last tensor combined
with a number, or with any broadcast operand that is not channels-last, fails at run time.

`x.contiguous(memory_format=torch.channels_last) * 2.0` exports as
`dim_order_ops::_clone_dim_order(dim_order=[0, 2, 3, 1])` and `aten.mul.Tensor` with the
number lifted to a 0-d constant. The 0-d operand has the default (empty) dim order, the
channels-last one does not, and the portable `mul.out` kernel checks that all its tensors
share one dim order (`tensors_have_same_dim_order(a, b, out)`): "[tensor_util_portable.
cpp:130] Check failed (all_contiguous || all_channels_last): 3 input tensors have
different dim orders", and `execute` fails with error 0x12. Eager broadcasts and returns
`2 * x` in channels-last. The same happens for add, sub and div with a number, an int
number, a 0-d tensor input and a (1, 1, 1, 1) tensor (both contiguous and channels-last in
memory, but planned with the default dim order); a channels-last tensor times itself,
and unary ops on it, run. The generator keeps `channels_last` Thunder-only for this reason
(fuzz/ops/layout.py); the bug was registered on 2026-12-07 from a program written while
testing the runtime origin.
"""

import torch


def program(x):
    return (x.contiguous(memory_format=torch.channels_last) * 2.0,)


def calls():
    return [(torch.randn(2, 3, 4, 5),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): an elementwise kernel's same-dim-order check failing
# in a program that converts a tensor to a non-default dim order.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"Check failed \(all_contiguous \|\| all_channels_last\): \d+ input tensors "
        r"have different dim orders",
        "facts": {"ops": ["dim_order_ops.*:dim-order"]},
    },
)
# Searched the issue index for "executorch channels_last mul scalar different dim orders
# op_mul tensors_have_same_dim_order" and "portable add mul channels_last tensor with
# scalar constant fails dim order check all_contiguous || all_channels_last": #7444 has
# the same message from an executor_runner with no program; #12914 is the open task for
# channels-last support in the portable kernels; #11086 and #21837 are other dim-order
# bugs. No report of this program.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'Channels-last tensor times a number fails: "3 input tensors have different dim orders"'
DESCRIBE = """
`x.contiguous(memory_format=torch.channels_last) * 2.0` (x of shape (2, 3, 4, 5)) lowers
to `_clone_dim_order(dim_order=[0, 2, 3, 1])` and `aten.mul.Tensor(clone, c)` where the
number became a 0-d constant `c`. At run time the portable `mul.out` kernel rejects it:
"[tensor_util_portable.cpp:130] Check failed (all_contiguous || all_channels_last): 3
input tensors have different dim orders", "[op_mul.cpp:37] Check failed
(tensors_have_same_dim_order(a, b, out))", and `execute` fails with 0x12. Eager returns
`2 * x`. add, sub and div with a number fail the same way, as does a (1, 1, 1, 1) or 0-d
tensor operand: an operand that broadcasts (0-d, or size 1 in every dim) is compatible
with any dim order, so the check could skip it, or the elementwise kernels could accept
mixed dim orders when the odd operand is broadcast.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/7444",
    "https://github.com/pytorch/executorch/issues/12914",
)
