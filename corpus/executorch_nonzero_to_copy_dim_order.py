"""Known upstream bug (ExecuTorch 1.5.1, to_edge): a dtype cast of `nonzero`'s output crashes.

The same root cause as executorch_nonzero_dim_order.py (pytorch/executorch#11086): the
exported program gives `nonzero`'s output PyTorch's transposed strides for it (stride
(1, n), dim order (1, 0)). `.to(x.dtype)` is `aten._to_copy` with preserve_format, which
MemoryFormatOpsPass turns into `_to_dim_order_copy(dim_order=[1, 0])`; re-tracing that op
maps the dim order back to a memory format, and a 2-D tensor has none for (1, 0):
`to_edge(export(M(), (x,)))` raises "AssertionError: Failed to map a given dim_order:
[1, 0] to a torch.memory_format" for x = [[1,-1,2],[-3,4,5]], where eager returns the
float indices [[0,0],[0,2],[1,1],[1,2]]. Any cast, `.float()` included, crashes alike; a
transposed view does not (export turns it into a contiguous `permute_copy`). Found by the
EXIR lane (exir.crash at to_edge); our fixes do not touch it.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0).to(x.dtype),)


def calls():
    return [(torch.tensor([[1.0, -1.0, 2.0], [-3.0, 4.0, 5.0]]),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": r"Failed to map a given dim_order",
    },
)
UPSTREAM = "https://github.com/pytorch/executorch/issues/11086"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'to_edge crashes on a cast of nonzero\'s output: "Failed to map a given dim_order: [1, 0]"'
DESCRIBE = """
`torch.nonzero(x > 0).to(x.dtype)` fails in `to_edge(export(...))` with "AssertionError:
Failed to map a given dim_order: [1, 0] to a torch.memory_format", where eager returns
the float indices. `nonzero`'s output carries ATen's stride (1, n) (dim order (1, 0));
`.to()` is `aten._to_copy` with preserve_format, which MemoryFormatOpsPass turns into
`_to_dim_order_copy(dim_order=[1, 0])`, and re-tracing that op maps the dim order back
to a memory format, which does not exist for a transposed 2-D tensor. Any cast
(`.float()` too) fails alike; a transposed view does not. Same trigger as the nonzero
dim-order runtime bug (#11086 class).
"""
RELATED = ("https://github.com/pytorch/executorch/pull/20878",)
VARIANT_OF = "executorch_nonzero_dim_order"
# Searched again on 2026-12-06 (issue and code indexes): "Failed to map a given
# dim_order to a torch.memory_format nonzero"; ""Failed to map a given dim_order"
# AssertionError _to_dim_order_copy". Found:
# https://github.com/pytorch/executorch/issues/11086.
