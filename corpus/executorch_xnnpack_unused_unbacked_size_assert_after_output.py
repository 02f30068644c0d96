"""Known upstream bug (ExecuTorch 1.5.1, exir/backend): lowering to a delegate fails
when the program holds runtime asserts on a data-dependent size it never uses.

`n = torch.nonzero(y).shape[0]` with `n` unused: torch.export keeps the size and its
range asserts (`_assert_scalar(u0 >= 0)`, `_assert_scalar(u0 <= 24)`). With the XNNPACK
partitioner taking `mul` and `relu`, `to_edge_transform_and_lower` (and the older
`to_edge(...).to_backend(XnnpackPartitioner())`) builds a graph whose `sym_size` and
`_assert_scalar` nodes come after its output node, and the exported program's verifier
refuses it: "AssertionError: last node must be output, got call_function"
(torch/_export/verifier.py, from exir/backend/backend_api.py's
`tagged_exported_program._validate()`). The same program lowers without a partitioner,
and with `n` used (`torch.ones(n)` returned) it lowers with one. Found by the XNNPACK
lane's first run (2026-12-07), on a program written to scope it.
"""

import torch


def program(x):
    y = x * 2.0
    _n = torch.nonzero(y).shape[0]  # computed, never used
    return (torch.relu(y),)


def calls():
    return [(torch.randn(3, 8),)]


LANES = ("xnnpack",)
EXPECT = ("xnnpack.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): the verifier's refusal of a lowered graph that does
# not end at its output, in a program with runtime asserts on a size.
MATCHES = (
    {
        "kind": "xnnpack.crash",
        "stage": "to_edge_transform_and_lower",
        "details": r"last node must be output, got call_function",
        "facts": {"ops": ["aten._assert_scalar.default"]},
    },
)
# Searched the issue index for "executorch to_edge_transform_and_lower XnnpackPartitioner
# last node must be output, got call_function" and "to_backend _assert_scalar nonzero
# unbacked data-dependent partition delegate last node must be output": no report.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = (
    "Delegate lowering puts an unused size's asserts after the output node: "
    '"last node must be output"'
)
DESCRIBE = """
A program that computes a data-dependent size and does not use it
(`n = torch.nonzero(y).shape[0]`) keeps the size's range asserts after torch.export
(`sym_size`, `_assert_scalar(u0 >= 0)`, `_assert_scalar(u0 <= 24)`). Lowering it with the
XNNPACK partitioner, which takes the `mul` and `relu` around the `nonzero`, fails in
`to_edge_transform_and_lower` (and in `to_edge(...).to_backend(XnnpackPartitioner())`):
the lowered graph ends with `return (getitem_1,)` followed by the `sym_size` and both
`_assert_scalar` nodes, and `tagged_exported_program._validate()` raises "AssertionError:
last node must be output, got call_function". Lowering the same program without a
partitioner works, and so does the same program when `n` is used (`torch.ones(n)`
returned). The nodes the partition does not take should stay before the output node
when the delegate call is inserted.
"""
