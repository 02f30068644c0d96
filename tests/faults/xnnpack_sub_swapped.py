"""Fault: the XNNPACK delegate serializes `sub`'s operands swapped.

Where: `SubVisitor.define_node` (executorch/backends/xnnpack/operators/op_sub.py), the glue
that writes a delegated `aten.sub.Tensor` into the XNNPACK flatbuffer.

What: the node's inputs are defined in order, but the XNNSubtract node takes them
crossed (input1_id = the second operand's id), so the delegate computes `b - a` for
`a - b`: wrong values wherever the operands differ, zero where they are equal (a sub of a
tensor with itself hides it). Programs whose sub the partitioner leaves to the portable
kernels (an int sub, a broadcast XNNPACK refuses) are unaffected.

Why realistic: each visitor is a hand-written copy of its neighbours; an operand pair
taken in the order its ids were allocated rather than the node's is a one-line slip that
every test of a commutative op (add, mul, maximum) passes.
"""

from __future__ import annotations

from executorch.backends.xnnpack.operators import op_sub
from executorch.backends.xnnpack.operators.node_visitor import _node_visitor_dict
from executorch.backends.xnnpack.serialization.xnnpack_graph_schema import XNNSubtract

from fixes._patching import Patch
from tests.faults import fault


def _define_node(self, node, xnn_graph, vals_to_ids, debug_handle):
    original_xnode = op_sub.XNode

    def crossed(xnode_union, **kw):
        if isinstance(xnode_union, XNNSubtract):  # faulty: the operands' ids crossed
            a, b = xnode_union.input1_id, xnode_union.input2_id
            xnode_union.input1_id, xnode_union.input2_id = b, a
        return original_xnode(xnode_union=xnode_union, **kw)

    op_sub.XNode = crossed
    try:
        return _ORIGINAL(self, node, xnn_graph, vals_to_ids, debug_handle)
    finally:
        op_sub.XNode = original_xnode


# The registry holds the visitor class (the module's own name is rebound to the decorator's
# None).
_VISITOR = _node_visitor_dict["aten.sub.Tensor"]
_ORIGINAL = _VISITOR.define_node


def _table() -> list[Patch]:
    return [Patch.set(_VISITOR, "define_node", _define_node)]


PATCHES = fault(__name__, _table, {"executorch": ">=1.5.1"})  # the visitor as 1.5.1 has it
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
