"""Planned EXIR tensors and the eager values they stand for.

The memory-plan oracles need, for every tensor ExecuTorch planned, the tensor eager
actually produced for it. Two pieces:

`interpret_aten(ep, args)` runs the exported ATen program (`ep.graph_module`, lifted
parameters and constants fed from the ExportedProgram) with real tensors under a
`torch.fx.Interpreter` and records every node's value, keyed by (graph path, node name).
`torch.cond` is run branch by branch with a nested recorder, so the taken branch's
nodes are recorded under that branch's path (the attribute name of its submodule).

`map_planned(et_gm, aten_gm)` maps every planned tensor of the ExecuTorch graph (all
levels) back to an ATen node. The mapping, in order of precedence:

  * placeholders: by name (to_edge and to_executorch keep user input names);
  * `getitem`: to its producer's mapping, element `args[1]`; its spec *is* the
    producer's spec element, so it is checked there and not again;
  * every other node: the root of its `meta['from_node']` provenance chain (follow the
    last NodeSource of each list to the one that has no sources of its own: the node of
    `ExportedProgram.module()`, whose names are the names of `ep.graph_module`). The
    candidate must also compute the same operator: the ATen schema name equals the
    planned node's schema name, or that name minus the `_copy` suffix that
    functionalization adds to view ops (`aten::select_copy` -> `aten::select`), or a
    documented dim-order equivalent (`dim_order_ops::_to_dim_order_copy` ->
    `aten::_to_copy`, ...); an in-place ATen op (`aten::add_`, export keeps it) stands
    for its functional form (`aten::add`, after to_edge). `memory.view` maps to an ATen view
    op of the same root.
    A node that fails the operator test (e.g. the `_to_dim_order_copy` that to_edge
    inserts for a lifted scalar, whose provenance is the `mul` that used it) stays
    unmapped and is counted, never guessed.
  * control flow: the EXIR `cond`/`while` node maps to the ATen node of the same root;
    its submodule arguments map position by position (EXIR `submodule_0` <-> ATen
    `true_graph_0`), and their nodes are mapped recursively against those submodules.

Debug handles are not used: to_executorch renumbers them and one ATen node can fan out
to several edge nodes with the same handle.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils._pytree as pytree

GraphPath = tuple[str, ...]  # submodule attribute names from the top graph; () is the top

# Planned (edge / out-variant) schema name -> ATen schema names it may stand for.
_EQUIVALENT_OPS: dict[str, frozenset[str]] = {
    "dim_order_ops::_to_dim_order_copy": frozenset({"aten::_to_copy", "aten::to"}),
    "dim_order_ops::_clone_dim_order": frozenset({"aten::clone"}),
    "dim_order_ops::_empty_dim_order": frozenset({"aten::empty"}),
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


def schema_name(target: Any) -> str | None:
    """`aten::add` for aten.add.Tensor / aten.add.out / the edge overload; None otherwise."""
    schema = op_schema(target)
    return schema.name if schema is not None else None


def op_schema(target: Any) -> Any:
    """The FunctionSchema of an OpOverload or EdgeOpOverload, else None."""
    schema = getattr(target, "_schema", None)
    if schema is None:  # EdgeOpOverload keeps the OpOverload in `_op`
        schema = getattr(getattr(target, "_op", None), "_schema", None)
    return schema


def same_operator(planned: str | None, aten: str | None) -> bool:
    if planned is None or aten is None:
        return False
    if aten.endswith("_") and not aten.endswith("__"):
        aten = aten[:-1]  # in-place ATen op (add_), functional after to_edge (add)
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


def is_memory_view(target: Any) -> bool:
    from executorch.exir import memory

    return target is memory.view


def is_alloc(target: Any) -> bool:
    from executorch.exir import memory

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


def tensor_specs(node: torch.fx.Node) -> list[tuple[int | None, Any]]:
    """(element index or None, TensorSpec) for each TensorSpec in node.meta['spec']."""
    from executorch.exir.tensor import TensorSpec

    spec = node.meta.get("spec")
    if isinstance(spec, TensorSpec):
        return [(None, spec)]
    if isinstance(spec, (list, tuple)):
        return [(i, s) for i, s in enumerate(pytree.tree_leaves(spec)) if isinstance(s, TensorSpec)]
    return []


@dataclasses.dataclass
class PlannedTensor:
    path: GraphPath  # EXIR graph level
    node: str  # EXIR node name
    target: str
    index: int | None  # element of a tuple-valued node
    spec: Any  # TensorSpec (kept by reference: oracles read the final plan)
    aten_path: GraphPath | None = None
    aten_node: str | None = None
    aten_index: int | None = None
    how: str = "unmapped"  # placeholder | getitem | op | view | control-flow | unmapped:<why>

    @property
    def mapped(self) -> bool:
        return self.aten_node is not None

    @property
    def where(self) -> str:
        at = "/".join(self.path + (self.node,))
        return at if self.index is None else f"{at}[{self.index}]"


def _control_flow_kind(node: torch.fx.Node) -> str:
    name = _target_str(node)
    return "while" if "while" in name else name


def _target_str(node: torch.fx.Node) -> str:
    """`aten::add` for operators, the function or HOP name otherwise."""
    t = node.target
    if isinstance(t, str):
        return t
    return schema_name(t) or getattr(t, "__name__", None) or str(t)


def map_planned(
    et_gm: torch.fx.GraphModule,
    aten_gm: torch.fx.GraphModule,
    et_path: GraphPath = (),
    aten_path: GraphPath = (),
) -> list[PlannedTensor]:
    """Every TensorSpec-carrying node of `et_gm` (recursively), mapped to `aten_gm`."""
    aten_nodes = {n.name: n for n in aten_gm.graph.nodes}
    out: list[PlannedTensor] = []
    by_node: dict[str, list[PlannedTensor]] = {}
    for node in et_gm.graph.nodes:
        if node.op in ("output", "get_attr") or is_alloc(node.target):
            continue  # output/alloc specs are their producers' spec objects
        specs = tensor_specs(node)
        if not specs:
            continue
        entries = [PlannedTensor(et_path, node.name, _target_str(node), i, s) for i, s in specs]
        by_node[node.name] = entries
        target_aten = None
        if node.op == "placeholder":
            if node.name in aten_nodes and aten_nodes[node.name].op == "placeholder":
                target_aten, how = aten_nodes[node.name], "placeholder"
            else:
                how = "unmapped:placeholder-not-in-aten"
        elif node.target is operator.getitem:
            parent = (
                by_node.get(node.args[0].name, [])
                if isinstance(node.args[0], torch.fx.Node)
                else []
            )
            key = node.args[1]
            src = next((p for p in parent if p.index == key), None)
            for e in entries:
                if src is not None and src.mapped:
                    e.aten_path, e.aten_node, e.aten_index = (
                        src.aten_path,
                        src.aten_node,
                        src.aten_index,
                    )
                    e.how = "getitem"
                else:
                    e.how = "unmapped:getitem-of-unmapped"
            out.extend(entries)
            continue
        else:
            root = provenance_root(node)
            cand = aten_nodes.get(root) if root else None
            if cand is None or cand.op != "call_function":
                how = "unmapped:no-provenance" if root is None else "unmapped:root-not-in-aten"
            elif is_memory_view(node.target):
                ok = schema_name(cand.target) in _VIEW_OPS
                target_aten, how = (cand, "view") if ok else (None, "unmapped:view-of-non-view")
            elif is_control_flow(node):
                ok = cand.target is node.target or _control_flow_kind(cand) == _control_flow_kind(
                    node
                )
                target_aten, how = (cand, "control-flow") if ok else (None, "unmapped:control-flow")
                if ok:
                    for et_sub, aten_sub in zip(
                        control_flow_submodules(node), control_flow_submodules(cand)
                    ):
                        et_mod = getattr(et_gm, et_sub.target, None)
                        aten_mod = getattr(aten_gm, aten_sub.target, None)
                        if isinstance(et_mod, torch.fx.GraphModule) and isinstance(
                            aten_mod, torch.fx.GraphModule
                        ):
                            out.extend(
                                map_planned(
                                    et_mod,
                                    aten_mod,
                                    et_path + (et_sub.target,),
                                    aten_path + (aten_sub.target,),
                                )
                            )
            elif same_operator(schema_name(node.target), schema_name(cand.target)):
                target_aten, how = cand, "op"
            else:
                how = (
                    f"unmapped:operator {schema_name(node.target)} is not "
                    f"{schema_name(cand.target)} of root {root}"
                )
        for e in entries:
            e.how = how
            if target_aten is not None:
                e.aten_path, e.aten_node, e.aten_index = aten_path, target_aten.name, e.index
        out.extend(entries)
    return out


# ---------------------------------------------------------------------------------------
# Running the exported ATen program with real tensors


def aten_inputs(ep: torch.export.ExportedProgram, args: tuple) -> list[Any]:
    """Flat inputs of `ep.graph_module`: lifted parameters/buffers/constants, then user args."""
    from torch.export.graph_signature import InputKind

    user = iter(pytree.tree_leaves((tuple(args), {})))
    flat = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            flat.append(next(user))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            flat.append(
                ep.state_dict[spec.target]
                if spec.target in ep.state_dict
                else ep.constants[spec.target]
            )
        else:  # CONSTANT_TENSOR, CUSTOM_OBJ, TOKEN
            flat.append(ep.constants.get(spec.target))
    return flat


class _Recorder(torch.fx.Interpreter):
    def __init__(self, gm: torch.fx.GraphModule, path: GraphPath, store: dict):
        super().__init__(gm, garbage_collect_values=False)
        self.path, self.store = path, store
        self.names = {id(m): name for name, m in gm.named_children()}

    def run_node(self, n: torch.fx.Node) -> Any:
        value = super().run_node(n)
        if n.op != "output":
            self.store[(self.path, n.name)] = value
        return value

    def call_function(self, target, args, kwargs):
        if target is torch.ops.higher_order.cond:
            pred, true_fn, false_fn, operands = args
            branch = true_fn if bool(pred) else false_fn
            name = self.names.get(id(branch))
            if isinstance(branch, torch.fx.GraphModule) and name is not None:
                return tuple(_Recorder(branch, self.path + (name,), self.store).run(*operands))
        return super().call_function(target, args, kwargs)


def interpret_aten(
    ep: torch.export.ExportedProgram, args: tuple
) -> dict[tuple[GraphPath, str], Any]:
    """Every node value of `ep.graph_module` on `args` (CPU tensors), keyed by (path, name)."""
    store: dict[tuple[GraphPath, str], Any] = {}
    with torch.no_grad():
        _Recorder(ep.graph_module, (), store).run(*aten_inputs(ep, args))
    return store


def actual_value(pt: PlannedTensor, values: dict[tuple[GraphPath, str], Any]) -> Any:
    """Eager's value for a planned tensor (None when unmapped or on a branch not taken)."""
    if not pt.mapped:
        return None
    value = values.get((pt.aten_path, pt.aten_node))
    if pt.aten_index is not None:
        if not isinstance(value, (list, tuple)) or pt.aten_index >= len(value):
            return None
        value = value[pt.aten_index]
    return value
