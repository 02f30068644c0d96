"""Known upstream bug (ExecuTorch 1.5.1 runtime): an op downstream of `nonzero` fails with
error 0x12 because `nonzero`'s output is planned with dim order (1, 0).

The same root cause as executorch_nonzero_dim_order.py (pytorch/executorch#11086): the
exported program gives `nonzero`'s output PyTorch's column-major strides for it (shape
(n, ndim), stride (1, n)), so its TensorSpec gets dim order (1, 0). For a 1-D input the
output has shape (n, 1), and `.squeeze(1)` lowers to `squeeze_copy.dims_out`, whose
portable kernel checks `tensors_have_same_dim_order(in, out)`: the input has dim order
(1, 0), the (n,) output (0), so the runtime logs "2 input tensors have different dim
orders" and `method->execute()` fails with error 0x12 (InvalidArgument) for
x = [1, -1, 2, 3], where eager returns [0, 2, 3]. Boolean-mask indexing written as
`x[torch.nonzero(mask).squeeze(1)]` fails the same way. Found by the fixes-on EXIR
campaign (23 programs); our fixes do not touch it.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0).squeeze(1),)


def calls():
    return [(torch.tensor([1.0, -1.0, 2.0, 3.0]),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): a runtime
# InvalidArgument whose log (fuzz/backends/exir/runtime.py) is a kernel's dim-order check
# ("2 input tensors have different dim orders" of squeeze_copy and the elementwise ops,
# "tensor_is_default_or_channels_last_dim_order(in)" of the reductions), in a program
# whose nonzero output has a non-default dim order.
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->execute\(\) failed with error 0x12 \(runtime log: .*dim[ _]order",
        "facts": {"ops": "aten.nonzero.default:dim-order"},
    },
)
UPSTREAM = "https://github.com/pytorch/executorch/issues/11086"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'squeeze of nonzero\'s output fails with "2 input tensors have different dim orders"'
DESCRIBE = """
For a 1-D x, `torch.nonzero(x > 0).squeeze(1)` returns [0, 2, 3] in eager for x = [1,
-1, 2, 3], but the ExecuTorch runtime fails `method->execute()` with error 0x12.
`nonzero`'s (n, 1) output is planned with ATen's stride (1, n), i.e. dim order (1, 0);
`squeeze_copy.dims_out` checks `tensors_have_same_dim_order(in, out)` against the (n,)
output and logs "2 input tensors have different dim orders". Boolean-mask indexing
written as `x[torch.nonzero(mask).squeeze(1)]` fails the same way. Same root cause as
the nonzero dim-order report (#11086 class).
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/20878",
    "https://github.com/pytorch/executorch/issues/7444",
)
VARIANT_OF = "executorch_nonzero_dim_order"
# Searched again on 2026-12-06 (issue and code indexes): "(shared with
# executorch_nonzero_dim_order; no separate queries)". Found:
# https://github.com/pytorch/executorch/issues/11086.
