"""Fault: SpecPropPass gives a binary elementwise op its first operand's spec.

Where: `executorch.exir.passes.spec_prop_pass.SpecPropPass.__call__`.

What: after the stock pass, the spec of `add`/`sub`/`mul`/`maximum`/`minimum` (edge
dialect, Tensor overloads) is rebuilt from the first operand's `meta['val']` instead of
the node's own: a "the output of an elementwise op looks like its input" shortcut that
forgets broadcasting (and type promotion). When the first operand is the one that
broadcasts (`(1, n) + (m, n)`), the TensorSpec is smaller than the tensor the kernel
writes: `exir.spec-meta` (and an under-allocated plan).

Why realistic: copying the input's spec for shape-preserving ops is a common
"optimisation" in spec/shape propagation, and elementwise ops are shape-preserving
except for broadcasting, the case such a shortcut forgets.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.passes import spec_prop_pass as spp

from fixes._patching import Patch
from tests.faults import EXECUTORCH, fault

_original = spp.SpecPropPass.__call__


def _binary_targets() -> set:
    edge = exir_ops.edge.aten
    aten = torch.ops.aten
    out = set()
    for name, overload in (
        ("add", "Tensor"),
        ("sub", "Tensor"),
        ("mul", "Tensor"),
        ("maximum", "default"),
        ("minimum", "default"),
    ):
        out.add(getattr(getattr(aten, name), overload))
        out.add(getattr(getattr(edge, name), overload))
    return out


def _call(self, graph_module):
    res = _original(self, graph_module)
    targets = _binary_targets()
    for module in res.graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            if node.op != "call_function" or node.target not in targets:
                continue
            first = node.args[0] if node.args else None
            if isinstance(first, torch.fx.Node) and isinstance(first.meta.get("val"), torch.Tensor):
                node.meta["spec"] = spp.make_spec(first.meta["val"])  # faulty shortcut
    return res


def _table() -> list[Patch]:
    table: list[Patch] = []
    table.append(Patch.set(spp.SpecPropPass, "__call__", _call))
    return table


PATCHES = fault(__name__, _table, EXECUTORCH)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # puts back exactly what install() replaced
install()
