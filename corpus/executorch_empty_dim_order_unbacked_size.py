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

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_edge crashes on torch.empty/new_empty whose size is data-dependent"
DESCRIBE = """
`v = torch.nonzero(x > 0); v.new_empty(v.shape).fill_(3) + v` exports fine, but to_edge
fails with `RuntimeError: dim_order_ops::_empty_dim_order() Expected a value of type
'List[int]' for argument 'size' but instead found type 'immutable_list'`.
MemoryFormatOpsPass rewrites `aten.empty.memory_format` to
`dim_order_ops::_empty_dim_order` and calls it on fake tensors, but the op's schema in
exir/passes/dim_order_ops_registry.py declares `int[] size`. A backed SymInt is silently
specialized on the way in; an unbacked one has no value, so the call fails. Any
`torch.empty`/`new_empty` sized by `nonzero`, `unique`, `masked_select` or a boolean
mask shows it, while `torch.zeros`/`full` are not rewritten and work. Declaring
`SymInt[] size` in both `_empty_dim_order` overloads should fix it.
"""
RELATED = ("https://github.com/pytorch/executorch/pull/7168",)
VARIANT_OF = "executorch_empty_dim_order_specializes"
# Searched again on 2026-12-06 (issue and code indexes): "Expected a value of type
# 'List[int]' for argument 'size' but instead found type 'immutable_list' unbacked".
# Found: no report of this bug.
