"""Known upstream bug (ExecuTorch 1.5.1, to_edge): `torch.empty`/`new_empty` of a dynamic
size makes the whole program static at the export example's sizes.

`to_edge`'s MemoryFormatOpsPass replaces `aten.empty.memory_format` with ExecuTorch's
`dim_order_ops::_empty_dim_order` and runs it on the fake tensors. That op's schema
(exir/passes/dim_order_ops_registry.py) declares `int[] size`, so each SymInt size goes
through `__index__`: the ShapeEnv guards `Eq(s77, 3)` on the example's value ("Ignored
guard s77 == 3, this could result in accuracy problems") and records the replacement
s77 -> 3. The env is shared by the exported program and every later pass, so every tensor
sized by s77 is now static: memory planning plans the example's sizes, and the runtime
rejects an input the program declares (here x of (6, 6): "Attempted to resize a bounded
tensor with a maximum capacity of 12 elements to 36 elements", `set_inputs` error 0x10),
or fails `execute` on a smaller one. No error is raised while lowering. Eager returns
`x * 2` and `x * 2 + 1` for every size in the declared ranges.

Where the size is an expression of several symbols (`v.new_empty((v.shape[1] + 1, 2))`
with `v = x.flatten(1, 2)`: s27*s53 + 1), the guard `Eq(s27*s53 + 1, 16)` replaces no
symbol: the contract stays dynamic and only that op's output is static, (16, 2). Every
call of another size then fails `execute` ("Attempted to resize a static tensor.
Expected shape (16, 2), but received (7, 2)", in `_empty_dim_order`'s kernel). The lane
records it as fact `specialized` "to_edge:dim_order_ops._empty_dim_order.default"
(patterns 4 and 5; found by a fault-benchmark night, seed 1, reproduced without the
plugin and with fixes and speedups off).

The same schema also crashes on an unbacked size
(corpus/executorch_empty_dim_order_unbacked_size.py, one upstream fix for both), and makes
a `torch.cond` over such a value fail to_executorch: LegalizePortableDimOrderPass re-traces
the branches, whose placeholders were recorded with SymInts that now read "3", against
fresh plain ints, and the replay check raises "Input at position 0 did not preserve
symbolic metadata across pass replay" (third pattern below).

Found through a harness bug it exposed: the EXIR lane read the exported program's
contract after to_edge, when the placeholders already read static, so every call of
another size was "outside the contract" and went unchecked (the outside-contract rate of
EXIR nights was about half). The lane now freezes the contract right after export and
records the specialization (fact `specialized`). Triaged from the default night at
ccaf204 (seed 7): a cond over `x0 * 2` followed by `new_empty(...).fill_`.
"""

import torch


def program(x):
    v = x * 2
    return (v, v.new_empty(v.shape).copy_(v + 1))


def calls():
    return [(torch.randn(3, 4),), (torch.randn(6, 6),), (torch.randn(2, 2),)]


LANES = ("exir", "xnnpack")  # the XNNPACK lane runs the same to_edge
DIMS = {"x": {0: (2, 6), 1: (2, 6)}}
EXPECT = ("exir.under-allocation", "exir.crash", "xnnpack.crash")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): to_edge
# specialized a declared dynamic dim (the lane's `specialized` fact) in a program with an
# `_empty_dim_order` node, or made that node's own size static where the size is an
# expression of several dims, and a later call of another size then finds the plan too
# small, the runtime refusing it, or the cond replay check failing.
MATCHES = (
    {
        "kind": "exir.under-allocation",
        "stage": "call",
        "details": r"planned \[.*\] \(\d+ bytes\) but",
        "facts": {"ops": "dim_order_ops._empty_dim_order.default", "specialized": "to_edge"},
    },
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->(set_inputs|execute)\(\) (for method '\w+' )?failed",
        "facts": {"ops": "dim_order_ops._empty_dim_order.default", "specialized": "to_edge"},
    },
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"did not preserve symbolic metadata across pass replay",
        "facts": {
            "ops": ["dim_order_ops._empty_dim_order.default", "higher_order.cond"],
            "specialized": "to_edge",
        },
    },
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->(set_inputs|execute)\(\) (for method '\w+' )?failed",
        "facts": {"specialized": "to_edge:dim_order_ops._empty_dim_order.default"},
    },
    {
        "kind": "exir.under-allocation",
        "stage": "call",
        "details": r"planned \[.*\] \(\d+ bytes\) but",
        "facts": {"specialized": "to_edge:dim_order_ops._empty_dim_order.default"},
    },
)
# Searched the issue index (pytorch/executorch, pytorch/pytorch) for "MemoryFormatOpsPass
# _empty_dim_order dynamic shape specialized SymInt int[] size", "torch.empty new_empty
# dynamic shapes to_edge specializes static Attempted to resize a bounded tensor" and
# "to_edge Ignored guard specialization empty_like new_empty guard_int": no report.
# pytorch/executorch#7717 (open) shows the same runtime message for a user's model with
# dynamic shapes, without a cause; #7168 added `_empty_dim_order` with `int[] size`.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_edge silently makes dynamic dims static when the program uses torch.empty/new_empty"
DESCRIBE = """
to_edge's MemoryFormatOpsPass replaces `aten.empty.memory_format` with
`dim_order_ops::_empty_dim_order` and re-runs it on fake tensors, but that op's schema
(exir/passes/dim_order_ops_registry.py) declares `int[] size` instead of `SymInt[]
size`. Each SymInt size therefore goes through `__index__`: the shared ShapeEnv guards
`Eq(s77, 3)` on the example value ("Ignored guard s77 == 3") and replaces s77 -> 3. From
then on every tensor sized by s77 is static. Memory planning uses the example's sizes,
and the runtime rejects inputs the program declares ("Attempted to resize a bounded
tensor with a maximum capacity of 12 elements to 36 elements", `set_inputs` error 0x10)
or fails `execute` on smaller ones, with no error while lowering. When the size is an
expression of several symbols, only that op's output becomes static, and calls of other
sizes fail in `_empty_dim_order`'s kernel ("Attempted to resize a static tensor").
Declaring the schema as `SymInt[] size` (both overloads) should fix this and the
unbacked-size crash of the same op.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/7168",
    "https://github.com/pytorch/executorch/issues/7717",
)
# Searched again on 2026-12-06 (issue and code indexes): "_empty_dim_order int[] size
# SymInt dynamic shape specialization to_edge MemoryFormatOpsPass"; "executorch
# torch.empty new_empty dynamic shapes "Attempted to resize a bounded tensor" dim
# order". Found: no report of this bug.
