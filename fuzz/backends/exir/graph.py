"""Facts about ExecuTorch graphs that the EXIR lane and its judgements both read.

Pure readers of a graph module, its TensorSpecs and its symbolic sizes, and the two
records the lane hands to the judgements (`SpecRecord`, `PlannedTensor`). Nothing here
runs a pipeline or a program; it sits below both the lane (fuzz/backends/exir/) and the
oracles (fuzz/backends/exir/oracles/), so neither imports the other's internals.

Graph levels: a planned program is a top graph plus one graph module per control-flow
branch or body (`cond`, `while`, `map`, `scan` take submodules as get_attr arguments);
a level is named by its `GraphPath`, the submodule attribute names from the top.

Alias classes: ExecuTorch expresses aliasing only through the memory plan. A tensor
lives in the allocation of its `storage_root`: a `memory.view`'s `_ViewSpec` reads its
base's placement, and `storage_base` chains point in-place and shared allocations at
their owner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import sympy
import torch
import torch.utils._pytree as pytree
from executorch.exir import memory
from executorch.exir.tensor import TensorSpec
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import bound_sympy

from fuzz.facts import target_name

GraphPath = tuple[str, ...]  # submodule attribute names from the top graph; () is the top

# ---------------------------------------------------------------------------------------
# Operators and nodes


def op_schema(target: Any) -> Any:
    """The FunctionSchema of an OpOverload or EdgeOpOverload, else None."""
    schema = getattr(target, "_schema", None)
    if schema is None:  # EdgeOpOverload keeps the OpOverload in `_op`
        schema = getattr(getattr(target, "_op", None), "_schema", None)
    return schema


def schema_name(target: Any) -> str | None:
    """`aten::add` for aten.add.Tensor / aten.add.out / the edge overload; None otherwise."""
    schema = op_schema(target)
    return schema.name if schema is not None else None


def is_memory_view(target: Any) -> bool:
    return target is memory.view


def is_alloc(target: Any) -> bool:
    return target is memory.alloc


def control_flow_submodules(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The get_attr arguments of a cond / while / map / scan node that name graph
    submodules, in order (not constants fetched by get_attr)."""
    if node.op != "call_function":
        return []
    owner = node.graph.owning_module
    return [
        a
        for a in node.args
        if isinstance(a, torch.fx.Node)
        and a.op == "get_attr"
        and isinstance(getattr(owner, a.target, None), torch.fx.GraphModule)
    ]


def is_control_flow(node: torch.fx.Node) -> bool:
    """cond / while / map / scan: a call that takes submodules (get_attr arguments)."""
    return bool(control_flow_submodules(node))


def graph_levels(
    gm: torch.fx.GraphModule, path: GraphPath = ()
) -> Iterator[tuple[GraphPath, torch.fx.GraphModule]]:
    """The graph and every control-flow submodule below it, parents first."""
    yield path, gm
    for node in gm.graph.nodes:
        if is_control_flow(node):
            for attr in control_flow_submodules(node):
                sub = getattr(gm, attr.target, None)
                if isinstance(sub, torch.fx.GraphModule):
                    yield from graph_levels(sub, path + (attr.target,))


# ---------------------------------------------------------------------------------------
# TensorSpecs and alias classes


def tensor_specs(node: torch.fx.Node) -> list[tuple[int | None, Any]]:
    """(element index or None, TensorSpec) for each TensorSpec in node.meta['spec']."""
    spec = node.meta.get("spec")
    if isinstance(spec, TensorSpec):
        return [(None, spec)]
    if isinstance(spec, (list, tuple)):
        return [(i, s) for i, s in enumerate(pytree.tree_leaves(spec)) if isinstance(s, TensorSpec)]
    return []


def storage_root(spec: Any) -> Any:
    """The spec whose allocation `spec` lives in (memory.view bases, storage_base chains)."""
    seen = set()
    while id(spec) not in seen:
        seen.add(id(spec))
        base = getattr(spec, "_base", None)  # _ViewSpec
        if base is not None:
            spec = base
            continue
        if getattr(spec, "storage_base", None) is not None:
            spec = spec.storage_base
            continue
        break
    return spec


# ---------------------------------------------------------------------------------------
# Symbolic sizes


def dim_expr(size: Any) -> sympy.Expr:
    """A size as a sympy expression (`s77`, `2*s77`, `3`)."""
    return size.node.expr if isinstance(size, torch.SymInt) else sympy.Integer(int(size))


def unbounded(x: Any) -> bool:
    """Whether an upper bound is no bound at all (None, int_oo, oo, or >= 2**62)."""
    return (
        x is None
        or x in (int_oo, sympy.oo)
        or (isinstance(x, (int, sympy.Integer)) and int(x) >= 2**62)
    )


def dim_bound(size: Any) -> int | None:
    """What ConstraintBasedSymShapeEvalPass plans for one dim; None for no finite bound."""
    if not isinstance(size, torch.SymInt):
        return int(size)
    node = size.node
    upper = bound_sympy(node.expr, node.shape_env.var_to_range).upper
    return None if unbounded(upper) else int(upper)


def shape_envs(gm: torch.fx.GraphModule) -> list[Any]:
    """The ShapeEnvs behind the symbolic sizes in `gm`'s (and its submodules')
    meta['val'], in the order the graph first uses them."""
    envs: dict[int, Any] = {}
    for _, level in graph_levels(gm):
        for node in level.graph.nodes:
            for v in pytree.tree_leaves(node.meta.get("val")):
                for s in list(v.shape) if isinstance(v, torch.Tensor) else [v]:
                    if isinstance(s, (torch.SymInt, torch.SymBool, torch.SymFloat)):
                        envs.setdefault(id(s.node.shape_env), s.node.shape_env)
    return list(envs.values())


# ---------------------------------------------------------------------------------------
# What the lane hands to the judgements


@dataclasses.dataclass
class SpecRecord:
    """One TensorSpec as SpecPropPass left it (before ConstraintBasedSymShapeEvalPass)."""

    path: GraphPath
    node: str
    index: int | None
    spec_id: int
    spec_shape: list[str]
    val_shape: list[str] | None  # None: the node has no tensor meta['val'] for this slot
    bound: list[int | None]  # per-dim upper bound the sym-shape pass will plan (None: int_oo)
    shape_dynamism: str

    @property
    def aten_key(self) -> tuple[GraphPath, str | None]:
        """(ATen graph path, ATen node name): where in the exported program it stands."""
        return (tuple(self.aten_path or ()), self.aten_node)

    @property
    def where(self) -> str:
        at = "/".join(self.path + (self.node,))
        return at if self.index is None else f"{at}[{self.index}]"


@dataclasses.dataclass
class PlannedTensor:
    """A tensor ExecuTorch planned, and the node whose value it holds (its reference).

    The reference is a node of the exported ATen program (`aten_*`: what eager computes)
    or, for tensors that program has no node for (a decomposition's intermediates, the
    views functionalization replays after a mutation), the node of the same name in the
    edge program (`edge_node`, same graph path as the planned node). See
    fuzz/backends/exir/mapping.py."""

    path: GraphPath  # EXIR graph level
    node: str  # EXIR node name
    target: str
    index: int | None  # element of a tuple-valued node
    spec: Any  # TensorSpec (kept by reference: oracles read the final plan)
    aten_path: GraphPath | None = None
    aten_node: str | None = None
    aten_index: int | None = None
    edge_node: str | None = None  # the edge program's node, when no ATen node stands for it
    # placeholder | getitem | op | view | control-flow | edge | unmapped:<why>
    how: str = "unmapped"

    @property
    def mapped(self) -> bool:
        return self.aten_node is not None or self.edge_node is not None

    @property
    def aten_key(self) -> tuple[GraphPath, str | None]:
        """(ATen graph path, ATen node name): where in the exported program it stands."""
        return (tuple(self.aten_path or ()), self.aten_node)

    @property
    def where(self) -> str:
        at = "/".join(self.path + (self.node,))
        return at if self.index is None else f"{at}[{self.index}]"

    @property
    def reference(self) -> str:
        """`aten_path/node` or `edge:path/node` (for reports)."""
        if self.aten_node is not None:
            return "/".join((self.aten_path or ()) + (self.aten_node,))
        return "edge:" + "/".join(self.path + (self.edge_node or "?",))


def actual_value(
    pt: PlannedTensor,
    values: dict[tuple[GraphPath, str], Any],
    edge_values: dict[tuple[GraphPath, str], Any] | None = None,
) -> Any:
    """The value of a planned tensor's reference node on one call (None when unmapped, on a
    branch not taken, or an edge reference without `edge_values`)."""
    if pt.aten_node is not None:
        value = values.get((pt.aten_path, pt.aten_node))
        index = pt.aten_index
    elif pt.edge_node is not None and edge_values is not None:
        value = edge_values.get((pt.path, pt.edge_node))
        index = pt.index
    else:
        return None
    if index is not None:
        if not isinstance(value, (list, tuple)) or index >= len(value):
            return None
        value = value[index]
    return value


def static_sizes(gm: torch.fx.GraphModule) -> dict[str, str]:
    """The sizes the program computes from its dynamic dims that a node of `gm` (cond
    branches included) now makes static, with that node's op: {"s27*s53 + 1=16":
    "dim_order_ops._empty_dim_order.default"}, for a node whose size-list argument holds
    a symbolic SymInt while the value it makes has a plain int in that dim.

    `contract.specialized` sees a guard that replaces one symbol (s77 -> 3). A guard on an
    expression of several symbols (`Eq(s27*s53 + 1, 16)`, from a pass that turns a
    SymInt size into an int through an `int[]` schema) replaces none: the contract stays
    dynamic, only that op's output is planned at the example's size."""
    out: dict[str, str] = {}
    for mod in gm.modules():
        graph = getattr(mod, "graph", None)
        if not isinstance(graph, torch.fx.Graph):
            continue
        for node in graph.nodes:
            val = node.meta.get("val")
            sizes = node.args[0] if node.op == "call_function" and node.args else None
            if not isinstance(val, torch.Tensor) or not isinstance(sizes, (list, tuple)):
                continue
            if len(sizes) != val.dim():
                continue
            for arg, made in zip(sizes, val.shape):
                size = arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None
                if (
                    isinstance(size, torch.SymInt)
                    and not size.node.expr.is_number
                    and not isinstance(made, torch.SymInt)
                ):
                    out.setdefault(f"{size.node.expr}={made}", target_name(node.target))
    return out
