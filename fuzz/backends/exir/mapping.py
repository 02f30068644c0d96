"""Planned EXIR tensors and the nodes whose values they hold; spec snapshots.

The memory-plan oracles need, for every tensor ExecuTorch planned, the tensor eager
actually produced for it. `map_planned(et_gm, aten_gm, edge_gm)` maps every planned
tensor of the ExecuTorch graph (all levels) to a reference node. In order of precedence:

  * placeholders: by name (to_edge and to_executorch keep user input names);
  * `getitem`: to its producer's mapping, element `args[1]`; its spec *is* the
    producer's spec element, so it is checked there and not again;
  * every other node: the root of its `meta['from_node']` provenance chain (follow the
    last NodeSource of each list to the one that has no sources of its own: the node of
    `ExportedProgram.module()`, whose names are the names of `ep.graph_module`). The
    candidate must also compute the same value: the ATen schema name equals the
    planned node's schema name, or that name minus the `_copy` suffix that
    functionalization adds to view ops (`aten::select_copy` -> `aten::select`), or a
    documented equivalent (`_EQUIVALENT_OPS`: dim-order ops, `aten::slice_copy` for
    `aten::narrow`, `aten::view_copy` for `aten::reshape`, `aten::permute_copy` for
    `aten::transpose`, ...); an in-place op (`aten::add_`, export keeps it) stands for
    its functional form (`aten::add`, after to_edge), and an in-place op the planned
    graph keeps for itself. A view copy must also have the candidate's symbolic shape:
    the views functionalization replays from a mutated base all carry the provenance of
    the last view of the chain (the slices of `x[:, :, ::2]` that of a later
    `narrow`). `memory.view` maps to an ATen view op of the same root.
  * an in-place op with no ATen node of its own (the `aten::copy_` write-back that
    to_executorch adds for a mutated input): to what the tensor it writes maps to; it
    holds that tensor's storage and, after the call, its value. So is an in-place op
    whose provenance is an ATen in-place op of another shape: `x[:, 1:].copy_(y)` is
    functionalized into a `slice_scatter` of `x` and a write-back `copy_` of the whole
    of `x` whose provenance is the program's `copy_` of the slice.
  * control flow: the EXIR `cond`/`while` node maps to the ATen node of the same root;
    its submodule arguments map position by position (EXIR `submodule_0` <-> ATen
    `true_graph_0`), and their nodes are mapped recursively against those submodules.
  * the edge program, when no ATen node holds the value: the intermediates of a
    decomposition (`matmul` -> `expand_copy`, `view_copy`, `bmm`; `stack` -> `cat`,
    `view_copy`), the views functionalization replays after a mutation (`view_1`, a
    name the ATen program does not have). to_executorch keeps the edge program's node
    names and submodule names, so the planned node maps to the edge node of the same
    name at the same graph path when that node computes the same operator (a
    `memory.view` was a `view_copy` there). The lane then runs the edge program on the
    call's inputs for those values: what the compiled program's own operators produce
    with real kernels, the size the planned buffer must hold.
  A node that fails every test (e.g. the `_to_dim_order_copy` that to_edge inserts for
  a lifted scalar, whose provenance is the `mul` that used it, when no edge program is
  given) stays unmapped and is counted (`mapping_counts`), never guessed.

Debug handles are not used: to_executorch renumbers them and one ATen node can fan out
to several edge nodes with the same handle.

`snapshot_specs(gm)` records every node's TensorSpec next to its meta['val'] shape
(what exir.spec-meta compares); the lane's SpecProbe takes it between SpecPropPass and
the sym-shape pass.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.backends.exir.graph import (
    GraphPath,
    PlannedTensor,
    SpecRecord,
    control_flow_submodules,
    dim_bound,
    dim_expr,
    graph_levels,
    is_alloc,
    is_control_flow,
    is_memory_view,
    schema_name,
    tensor_specs,
)

# Planned (edge / out-variant) schema name -> ATen schema names whose value it holds.
_EQUIVALENT_OPS: dict[str, frozenset[str]] = {
    "dim_order_ops::_to_dim_order_copy": frozenset({"aten::_to_copy", "aten::to"}),
    "dim_order_ops::_clone_dim_order": frozenset({"aten::clone"}),
    "dim_order_ops::_empty_dim_order": frozenset({"aten::empty"}),
    # View ops the ATen program keeps under another name than their functional copy.
    "aten::slice_copy": frozenset({"aten::narrow"}),
    "aten::view_copy": frozenset(
        {"aten::reshape", "aten::_unsafe_view", "aten::flatten", "aten::unflatten"}
    ),
    "aten::permute_copy": frozenset({"aten::transpose", "aten::t", "aten::movedim"}),
    "aten::expand_copy": frozenset({"aten::expand_as", "aten::broadcast_to"}),
}
_VIEW_OPS = frozenset(
    {
        "aten::view",
        "aten::_unsafe_view",
        "aten::reshape",
        "aten::view_copy",
        "aten::squeeze",
        "aten::unsqueeze",
        "aten::flatten",
        "aten::alias",
    }
)


def _functional(name: str) -> str:
    """`aten::add` for the in-place `aten::add_` (not for dunder names)."""
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


def same_operator(planned: str | None, aten: str | None) -> bool:
    """Whether a planned node of schema `planned` holds the value of an ATen node of
    schema `aten` (see the module docstring)."""
    if planned is None or aten is None:
        return False
    planned, aten = _functional(planned), _functional(aten)
    if planned == aten or _EQUIVALENT_OPS.get(planned, frozenset()) >= {aten}:
        return True
    return planned.endswith("_copy") and planned[: -len("_copy")] == aten


def provenance_root(node: torch.fx.Node) -> str | None:
    """Name of the oldest node in `node.meta['from_node']`, or None without provenance."""
    sources, name = node.meta.get("from_node"), None
    while sources:
        source = sources[-1]
        name = source.name
        sources = source.from_node
    return name


def _target_str(node: torch.fx.Node) -> str:
    """`aten::add` for operators, the function or HOP name otherwise."""
    t = node.target
    if isinstance(t, str):
        return t
    return schema_name(t) or getattr(t, "__name__", None) or str(t)


def _control_flow_kind(node: torch.fx.Node) -> str:
    name = _target_str(node)
    return "while" if "while" in name else name


def _edge_same(node: torch.fx.Node, edge: torch.fx.Node) -> bool:
    """Whether the edge node `edge` computes what the planned `node` holds."""
    if node.op == "placeholder" or edge.op == "placeholder":
        return node.op == edge.op
    if edge.op != "call_function":
        return False
    if is_memory_view(node.target):
        return schema_name(edge.target) == "aten::view_copy"
    if is_control_flow(node):
        return is_control_flow(edge) and _control_flow_kind(edge) == _control_flow_kind(node)
    planned = schema_name(node.target)
    return planned is not None and planned == schema_name(edge.target) and _alike(node, edge)


def _alike(node: torch.fx.Node, edge: torch.fx.Node) -> bool:
    """The two values have one dtype and rank. A name and an operator alone can name
    another node: to_executorch's re-traces may renumber the nodes of one operator (a
    `_to_dim_order_copy` of a lifted scalar took the name of the edge program's `.long()`
    of a [4, 5] tensor, and was judged against it: a false under-allocation)."""
    a, b = node.meta.get("val"), edge.meta.get("val")
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.dtype == b.dtype and a.dim() == b.dim()
    return True


def map_planned(
    et_gm: torch.fx.GraphModule,
    aten_gm: torch.fx.GraphModule,
    edge_gm: torch.fx.GraphModule | None = None,
) -> list[PlannedTensor]:
    """Every TensorSpec-carrying node of `et_gm` (recursively), mapped to `aten_gm`, or to
    `edge_gm` (the edge program's graph module) where no ATen node holds its value."""
    edge_levels = dict(graph_levels(edge_gm)) if edge_gm is not None else None
    out: list[PlannedTensor] = []
    _map_level(et_gm, (), aten_gm, (), edge_levels, out)
    return out


def _map_level(
    et_gm: torch.fx.GraphModule,
    et_path: GraphPath,
    aten_gm: torch.fx.GraphModule | None,
    aten_path: GraphPath | None,
    edge_levels: dict[GraphPath, torch.fx.GraphModule] | None,
    out: list[PlannedTensor],
) -> None:
    aten_nodes = {n.name: n for n in aten_gm.graph.nodes} if aten_gm is not None else {}
    edge_level = edge_levels.get(et_path) if edge_levels is not None else None
    edge_nodes = {n.name: n for n in edge_level.graph.nodes} if edge_level is not None else {}
    by_node: dict[str, list[PlannedTensor]] = {}
    for node in et_gm.graph.nodes:
        if node.op in ("output", "get_attr") or is_alloc(node.target):
            continue  # output/alloc specs are their producers' spec objects
        specs = tensor_specs(node)
        if not specs and not is_control_flow(node):
            continue
        entries = [PlannedTensor(et_path, node.name, _target_str(node), i, s) for i, s in specs]
        by_node[node.name] = entries
        if node.target is operator.getitem:
            parent = (
                by_node.get(node.args[0].name, [])
                if isinstance(node.args[0], torch.fx.Node)
                else []
            )
            src = next((p for p in parent if p.index == node.args[1]), None)
            for e in entries:
                if src is not None and src.mapped:
                    e.aten_path, e.aten_node, e.aten_index = (
                        src.aten_path,
                        src.aten_node,
                        src.aten_index,
                    )
                    e.edge_node, e.how = src.edge_node, "getitem"
                else:
                    e.how = "unmapped:getitem-of-unmapped"
            out.extend(entries)
            continue
        target_aten, how = _aten_candidate(node, aten_nodes, aten_gm is None)
        if is_control_flow(node):  # branches are mapped whether or not the node is
            aten_subs = control_flow_submodules(target_aten) if target_aten is not None else []
            for k, et_sub in enumerate(control_flow_submodules(node)):
                et_mod = getattr(et_gm, et_sub.target)
                aten_sub = aten_subs[k] if k < len(aten_subs) else None
                aten_mod = getattr(aten_gm, aten_sub.target) if aten_sub is not None else None
                sub_path = aten_path + (aten_sub.target,) if aten_sub is not None else None
                _map_level(et_mod, et_path + (et_sub.target,), aten_mod, sub_path, edge_levels, out)
        written = _written_back(node, by_node)
        if written is not None and target_aten is not None and not _same_shape(node, target_aten):
            target_aten = None  # an in-place op on a view, written back to its base (below)
        if target_aten is None and written is not None:  # e.g. a copy_ to_executorch adds
            for e in entries:
                e.aten_path, e.aten_node, e.aten_index = (
                    written.aten_path,
                    written.aten_node,
                    written.aten_index,
                )
                e.edge_node, e.how = written.edge_node, "write-back"
            out.extend(entries)
            continue
        if target_aten is None and edge_levels is not None:
            edge = edge_nodes.get(node.name)
            if edge is not None and _edge_same(node, edge):
                for e in entries:
                    e.edge_node, e.how = edge.name, "edge"
                out.extend(entries)
                continue
            how += (
                "; not in the edge program"
                if edge is None
                else f"; edge {edge.name} is {_target_str(edge)}"
            )
        for e in entries:
            e.how = how
            if target_aten is not None:
                e.aten_path, e.aten_node, e.aten_index = aten_path, target_aten.name, e.index
        out.extend(entries)


def _written_back(
    node: torch.fx.Node, by_node: dict[str, list[PlannedTensor]]
) -> PlannedTensor | None:
    """For an in-place op (`aten::copy_`, `aten::add_`) of one tensor result: the mapped
    entry of the tensor it writes (its first argument), whose storage and value after
    the call the result is."""
    name = schema_name(node.target)
    if name is None or _functional(name) == name or not node.args:
        return None
    dst = node.args[0]
    entries = by_node.get(dst.name, []) if isinstance(dst, torch.fx.Node) else []
    return entries[0] if len(entries) == 1 and entries[0].mapped else None


def _same_shape(a: torch.fx.Node, b: torch.fx.Node) -> bool:
    """Whether two nodes' values have the same symbolic shape (True when one is unknown)."""
    va, vb = a.meta.get("val"), b.meta.get("val")
    if not isinstance(va, torch.Tensor) or not isinstance(vb, torch.Tensor):
        return True
    return _shape_text(va.shape) == _shape_text(vb.shape)


def _shape_text(shape: Sequence[Any]) -> list[str]:
    """A shape as printed symbolic sizes (`["s77", "2*s77", "3"]`)."""
    return [str(dim_expr(d)) for d in shape]


def _aten_candidate(
    node: torch.fx.Node, aten_nodes: dict[str, torch.fx.Node], no_aten_level: bool
) -> tuple[torch.fx.Node | None, str]:
    """The ATen node holding `node`'s value and how it was found, or (None, unmapped:why)."""
    if no_aten_level:
        return None, "unmapped:branch-not-in-aten"
    if node.op == "placeholder":
        cand = aten_nodes.get(node.name)
        if cand is not None and cand.op == "placeholder":
            return cand, "placeholder"
        return None, "unmapped:placeholder-not-in-aten"
    root = provenance_root(node)
    cand = aten_nodes.get(root) if root else None
    if cand is None or cand.op != "call_function":
        return None, "unmapped:no-provenance" if root is None else "unmapped:root-not-in-aten"
    if is_memory_view(node.target):
        ok = schema_name(cand.target) in _VIEW_OPS
        return (cand, "view") if ok else (None, "unmapped:view-of-non-view")
    if is_control_flow(node):
        ok = cand.target is node.target or _control_flow_kind(cand) == _control_flow_kind(node)
        return (cand, "control-flow") if ok else (None, "unmapped:control-flow")
    if same_operator(schema_name(node.target), schema_name(cand.target)):
        if (schema_name(node.target) or "").endswith("_copy") and not _same_shape(node, cand):
            # A view functionalization replays from a mutated base: `x.add_(x)` then
            # `x[:, :, ::2].narrow(0, 0, 2)` recomputes each slice of the chain, and all
            # of them carry the narrow's provenance. Only the last holds its value.
            return None, "unmapped:view-replay"
        return cand, "op"
    return None, (
        f"unmapped:operator {schema_name(node.target)} is not "
        f"{schema_name(cand.target)} of root {root}"
    )


_ROOT = re.compile(r" of root \S+")


def mapping_counts(planned: list[PlannedTensor]) -> tuple[Counter, Counter]:
    """(counts, unmapped reasons) over the planned buffers the plan oracles look at:
    counts["planned-mapped"] / counts["planned-unmapped"], one per planned buffer
    (getitems, whose spec is their producer's, constants and unplanned specs are left
    out); the reasons without node names, so they add up across programs."""
    counts: Counter = Counter()
    why: Counter = Counter()
    for pt in planned:
        if pt.spec.const or pt.spec.mem_offset is None or pt.target == "getitem":
            continue
        if pt.mapped:
            counts["planned-mapped"] += 1
        else:
            counts["planned-unmapped"] += 1
            why[_ROOT.sub("", pt.how.removeprefix("unmapped:"))] += 1
    return counts, why


# ---------------------------------------------------------------------------------------
# Spec snapshots (exir.spec-meta reads them)


def snapshot_specs(gm: torch.fx.GraphModule) -> list[SpecRecord]:
    """Record every node's TensorSpec(s) next to its meta['val'] shape, all graph levels."""
    records = []
    for path, level in graph_levels(gm):
        for node in level.graph.nodes:
            vals = node.meta.get("val")
            if node.op == "output":
                vals = pytree.tree_leaves(vals) if vals is not None else None
            flat_vals = (
                [vals]
                if isinstance(vals, torch.Tensor)
                else (list(pytree.tree_leaves(vals)) if vals is not None else [])
            )
            for index, spec in tensor_specs(node):
                val = (
                    flat_vals[index if index is not None else 0]
                    if flat_vals and ((index or 0) < len(flat_vals))
                    else None
                )
                val_shape = _shape_text(val.shape) if isinstance(val, torch.Tensor) else None
                records.append(
                    SpecRecord(
                        path,
                        node.name,
                        index,
                        id(spec),
                        _shape_text(spec.shape),
                        val_shape,
                        [dim_bound(s) for s in spec.shape],
                        getattr(spec.shape_dynamism, "name", "?"),
                    )
                )
    return records
