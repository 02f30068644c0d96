"""Fault: ExecuTorch's lifetime walk does not look inside lists of operands.

Where: `executorch.exir.memory_planning.update_all_tensors_lifetime` (run by every
memory planning algorithm before it places tensors).

What: a tensor's lifetime must run from the first to the last node that refers to it,
including references inside a list or tuple argument: `cat`'s and `stack`'s operands,
`cond`'s operands, the output node's tuple of results. The faulty walk takes the node's
direct arguments only (`isinstance(arg, Node)`, without flattening): a tensor whose last
use is as a list element, or that the program returns, ends its life early, and the
planner gives its bytes to a tensor made later, which overwrites it before it is read.

Why realistic: `filter_nodes` exists only to flatten those containers; a walk rewritten
as a comprehension over `node.args` reads as the same thing and passes every program
whose tensors are used directly.
"""

from __future__ import annotations

import itertools

from executorch.exir import memory_planning as mp
from torch.fx import Node

from fixes._patching import Patch
from tests.faults import fault


def update_all_tensors_lifetime(graph_module, graph_signature=None):
    specs = set()
    max_node_idx = len(graph_module.graph.nodes) - 1
    for node_idx, node in enumerate(graph_module.graph.nodes):
        direct = [  # faulty: operands inside lists and tuples are not seen
            a
            for a in itertools.chain([node], node.args, node.kwargs.values())
            if isinstance(a, Node)
        ]
        for spec in mp.collect_specs_from_nodes(
            direct,
            graph_signature,
            ignore_graph_input=False,
            ignore_const=False,
            ignore_out_var_node=False,
            dedup=False,
            do_assertion=False,
            ignore_dynamic_unbound_tensor=False,
        ):
            mp.update_tensor_lifetime(node, spec, node_idx, max_node_idx, graph_signature)
            specs.add(spec)
    mp._extend_storage_base_lifetimes(specs)
    return specs


def _table() -> list[Patch]:
    return [Patch.set(mp, "update_all_tensors_lifetime", update_all_tensors_lifetime)]


PATCHES = fault(__name__, _table, {"executorch": ">=1.5.1"})  # the walk as 1.5.1 has it
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
