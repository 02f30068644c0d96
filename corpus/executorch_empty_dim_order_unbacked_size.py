"""Known upstream bug (ExecuTorch 1.5.1, to_edge): `torch.empty` of an unbacked size crashes.

`to_edge`'s MemoryFormatOpsPass replaces `aten.empty.memory_format` with ExecuTorch's
`dim_order_ops::_empty_dim_order` and runs it on the fake tensors. That op's schema
(exir/passes/dim_order_ops_registry.py) declares `int[] size`, not `SymInt[] size`: a
backed size is specialised to its hint on the way in (which makes the whole program
static: corpus/executorch_empty_dim_order_specializes.py, the same schema), but a
data-dependent one has no hint, so the call fails with "RuntimeError:
dim_order_ops::_empty_dim_order() Expected a value of type 'List[int]' for argument
'size' but instead found type 'immutable_list'" (exir.crash at to_edge; eager returns
the filled tensor). Any `torch.empty(n)`, `t.new_empty(shape)` or `empty(...)` whose size
comes from `nonzero`, `unique`, `unique_consecutive`, a boolean mask or the harness's
data-dependent custom ops shows it; `torch.zeros`/`full` are not rewritten and pass.

Found by the default nightly at 4c16446 (seed 7): `v.new_empty(v.shape)` after
`unique_consecutive`, written then read.
"""

import torch


def program(x):
    v = torch.nonzero(x > 0)
    return (v.new_empty(v.shape).fill_(3) + v,)


def calls():
    return [(torch.tensor([1.0, -1.0, 2.0, 0.5]),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the message
# names the op and the argument its schema types as int[].
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": (
            r"_empty_dim_order\(\) Expected a value of type 'List\[int\]' for argument 'size'"
        ),
    },
)
# Searched the issue index for "_empty_dim_order expected List[int] immutable_list
# unbacked", "dim_order_ops _empty_dim_order schema int[] size SymInt unbacked" and
# "torch.empty unbacked symint nonzero to_edge MemoryFormatOpsPass": no upstream report.
# Upstream's dim_order_ops_registry.py still declares `_empty_dim_order(int[] size, ...)`.
UPSTREAM = None
CLASS = "bug"
