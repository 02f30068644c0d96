"""Memory-plan oracles for the EXIR lane: specs, bounds, overlap, allocation, variance.

All functions here are pure: they read an ExecuTorch graph (and the exported ATen
program it came from) and return `Divergence` records; the lane decides when to call
them. Kinds emitted: exir.spec-meta, exir.bound-loss, exir.overlap,
exir.under-allocation, exir.pipeline-variance.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import sympy
import torch
import torch.utils._pytree as pytree
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from fuzz.divergence import Divergence
from fuzz.oracles.exir_trace import (
    GraphPath,
    PlannedTensor,
    actual_value,
    graph_levels,
    is_alloc,
    is_control_flow,
    tensor_specs,
)

MAX_PER_KIND = 8  # divergences of one kind per check; the rest are counted in data

# ---------------------------------------------------------------------------------------
# Symbolic shapes


def _expr(size: Any) -> sympy.Expr:
    if isinstance(size, torch.SymInt):
        return size.node.expr
    return sympy.Integer(int(size))


def _shape_env_of(values: Iterable[Any]):
    for v in values:
        for leaf in pytree.tree_leaves(v):
            if isinstance(leaf, torch.Tensor):
                for s in leaf.shape:
                    if isinstance(s, torch.SymInt):
                        return s.node.shape_env
            elif isinstance(leaf, (torch.SymInt, torch.SymBool)):
                return leaf.node.shape_env
    return None


def _unbounded(x: Any) -> bool:
    return (
        x is None
        or x in (int_oo, sympy.oo)
        or (isinstance(x, (int, sympy.Integer)) and int(x) >= 2**62)
    )


# ---------------------------------------------------------------------------------------
# exir.spec-meta: the spec SpecPropPass built must describe the node's meta['val']


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
    def where(self) -> str:
        at = "/".join(self.path + (self.node,))
        return at if self.index is None else f"{at}[{self.index}]"


def _dim_bound(size: Any) -> int | None:
    """What ConstraintBasedSymShapeEvalPass plans for one dim; None for no finite bound."""
    if not isinstance(size, torch.SymInt):
        return int(size)
    node = size.node
    upper = bound_sympy(node.expr, node.shape_env.var_to_range).upper
    return None if _unbounded(upper) else int(upper)


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
                val_shape = (
                    [str(_expr(s)) for s in val.shape] if isinstance(val, torch.Tensor) else None
                )
                records.append(
                    SpecRecord(
                        path,
                        node.name,
                        index,
                        id(spec),
                        [str(_expr(s)) for s in spec.shape],
                        val_shape,
                        [_dim_bound(s) for s in spec.shape],
                        getattr(spec.shape_dynamism, "name", "?"),
                    )
                )
    return records


def check_spec_meta(records: list[SpecRecord], device: str = "cpu") -> list[Divergence]:
    """exir.spec-meta: every spec's shape expressions equal its meta['val'] shape's.

    Expressions are compared as printed sympy (`s77`, `8*s77`, `u3`): an unbacked
    symbol of another trace (`u18` for `u17`) is a different symbol and a mismatch, even
    when both happen to carry the same bound.
    """
    bad = [r for r in records if r.val_shape is not None and r.val_shape != r.spec_shape]
    out = [
        Divergence(
            "exir.spec-meta",
            "spec-prop",
            f"{r.where}: spec shape {r.spec_shape} but meta['val'] shape {r.val_shape}",
            device,
            {
                "node": r.where,
                "spec_shape": r.spec_shape,
                "val_shape": r.val_shape,
                "mismatched": len(bad),
            },
        )
        for r in bad[:MAX_PER_KIND]
    ]
    return out


# ---------------------------------------------------------------------------------------
# exir.bound-loss: planned upper bounds against the bounds the exported program declares


def _assert_exprs(gm: torch.fx.GraphModule) -> list[sympy.Basic]:
    out = []
    for _, level in graph_levels(gm):
        for node in level.graph.nodes:
            if node.op == "call_function" and node.target in (
                torch.ops.aten._assert_scalar.default,
                torch.ops.aten._assert_scalar,
            ):
                arg = node.args[0]
                val = arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None
                if isinstance(val, torch.SymBool):
                    out.append(val.node.expr)
    return out


def _refine(ranges: dict, rels: list[sympy.Basic], rounds: int = 3) -> None:
    """Tighten symbol ranges with `sym <= expr` / `expr <= sym` style assertions."""
    for _ in range(rounds):
        for rel in rels:
            if isinstance(rel, (sympy.Ge, sympy.Gt)):
                lo, hi, strict = rel.rhs, rel.lhs, isinstance(rel, sympy.Gt)
            elif isinstance(rel, (sympy.Le, sympy.Lt)):
                lo, hi, strict = rel.lhs, rel.rhs, isinstance(rel, sympy.Lt)
            else:
                continue
            if isinstance(lo, sympy.Symbol) and lo in ranges:  # lo <= hi: cap lo's upper
                upper = bound_sympy(hi, ranges).upper
                cur = ranges[lo]
                if not _unbounded(upper):
                    upper = int(upper) - (1 if strict else 0)
                    if (_unbounded(cur.upper) or upper < int(cur.upper)) and upper >= cur.lower:
                        ranges[lo] = ValueRanges(cur.lower, upper)
            if isinstance(hi, sympy.Symbol) and hi in ranges:  # lo <= hi: raise hi's lower
                lower = bound_sympy(lo, ranges).lower
                cur = ranges[hi]
                if lower not in (-int_oo, -sympy.oo):
                    lower = int(lower) + (1 if strict else 0)
                    if lower > cur.lower and (_unbounded(cur.upper) or lower <= cur.upper):
                        ranges[hi] = ValueRanges(lower, cur.upper)


def declared_ranges(ep: torch.export.ExportedProgram) -> dict:
    """Symbol -> ValueRanges the exported program declares.

    The shape env's var_to_range intersected with `ep.range_constraints`, then tightened
    with the program's runtime assertions (torch._check, in fake kernels or user code:
    the shape env's deferred runtime asserts and the graph's _assert_scalar nodes), e.g.
    `u0 <= 3*s77` with s77 in [2, 8] caps u0 at 24 although var_to_range says int_oo.
    """
    env = _shape_env_of(
        n.meta.get("val") for _, lvl in graph_levels(ep.graph_module) for n in lvl.graph.nodes
    )
    ranges = dict(env.var_to_range) if env is not None else {}
    for sym, vr in ep.range_constraints.items():
        ranges[sym] = ranges[sym] & vr if sym in ranges else vr
    rels = _assert_exprs(ep.graph_module)
    if env is not None:
        rels += [ra.expr for ras in env.deferred_runtime_asserts.values() for ra in ras]
    _refine(ranges, rels)
    return ranges


def numel_bound(val: Any, ranges: dict) -> int | None:
    """Upper bound of a (fake) tensor's element count under `ranges`; None: unbounded."""
    total = 1
    for s in val.shape:
        if isinstance(s, torch.SymInt):
            upper = bound_sympy(s.node.expr, ranges).upper
            if _unbounded(upper):
                return None
            total *= int(upper)
        else:
            total *= int(s)
    return total


def _aten_meta(pt: PlannedTensor, aten_gm: torch.fx.GraphModule) -> Any:
    mod = aten_gm
    for name in pt.aten_path or ():
        mod = getattr(mod, name)
    node = next((n for n in mod.graph.nodes if n.name == pt.aten_node), None)
    val = node.meta.get("val") if node is not None else None
    if pt.aten_index is not None:
        val = (
            val[pt.aten_index]
            if isinstance(val, (list, tuple)) and pt.aten_index < len(val)
            else None
        )
    return val


def planned_numel(
    spec: Any, snapshot_bounds: dict[int, list[int | None]] | None = None
) -> int | None:
    """Elements planned for a spec: its concrete shape after the sym-shape pass, else the
    bound the snapshot computed; None when no finite bound exists."""
    if all(isinstance(s, int) for s in spec.shape):
        return math.prod(spec.shape)
    bounds = (snapshot_bounds or {}).get(id(spec))
    if bounds is None:
        bounds = [_dim_bound(s) for s in spec.shape]
    return None if any(b is None for b in bounds) else math.prod(bounds)


CORE_NAMESPACES = ("aten", "dim_order_ops", "prims", "executorch_prim", "quantized_decomposed")


def is_custom_op(target: str) -> bool:
    """`fuzz::positive_head` and other non-core operator namespaces."""
    return "::" in target and target.split("::", 1)[0] not in CORE_NAMESPACES


def check_bounds(
    planned: list[PlannedTensor],
    ep: torch.export.ExportedProgram,
    factor: Callable[[PlannedTensor], float] = lambda pt: 1.0,
    snapshot_bounds: dict[int, list[int | None]] | None = None,
    device: str = "cpu",
) -> tuple[list[Divergence], list[dict]]:
    """exir.bound-loss: each mapped tensor's planned elements vs the declared bound.

    needed = upper bound of the ATen node's meta['val'] numel under `declared_ranges`;
    planned = numel of the final spec (or the snapshot's bound when to_executorch died
    before planning). Diverges when planned is unbounded while needed is finite, or
    planned > factor(pt) * needed. The table (one row per mapped tensor) goes into the
    report for people; planned < needed is legal (EXIR may know more) and only listed.
    """
    ranges = declared_ranges(ep)
    table, bad = [], []
    for pt in planned:
        if not pt.mapped or pt.how == "getitem" or pt.spec.const:
            continue
        val = _aten_meta(pt, ep.graph_module)
        if not isinstance(val, torch.Tensor):
            continue
        needed = numel_bound(val, ranges)
        have = planned_numel(pt.spec, snapshot_bounds)
        f = factor(pt)
        row = {
            "node": pt.where,
            "aten": "/".join((pt.aten_path or ()) + (pt.aten_node,)),
            "planned": have,
            "needed": needed,
            "factor": f,
            "ratio": (have / needed) if have is not None and needed else None,
        }
        table.append(row)
        if needed is None:
            continue  # the program itself declares no finite bound: nothing to lose
        if have is None or have > f * needed:
            bad.append(row)
    out = [
        Divergence(
            "exir.bound-loss",
            "plan-bounds",
            f"{r['node']}: planned {'unbounded (int_oo)' if r['planned'] is None else r['planned']}"
            f" elements, the program declares at most {r['needed']} (factor {r['factor']})",
            device,
            dict(r, lost=len(bad)),
        )
        for r in bad[:MAX_PER_KIND]
    ]
    return out, table


# ---------------------------------------------------------------------------------------
# exir.overlap: no two live tensors share bytes, at every graph level


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


def _planned_specs(level: torch.fx.GraphModule) -> list[tuple[str, Any]]:
    seen, out = set(), []
    for node in level.graph.nodes:
        if node.op == "get_attr":
            continue
        for _, spec in tensor_specs(node):
            if id(spec) in seen or spec.const or spec.mem_offset is None or spec.mem_id is None:
                continue
            seen.add(id(spec))
            out.append((node.name, spec))
    return out


def _lifetime(spec) -> tuple[int, int] | None:
    lt = spec.lifetime  # a _ViewSpec reads its base's lifetime
    if lt is None or lt[0] is None or lt[1] is None:
        return None
    return int(lt[0]), int(lt[1])


def _ivl_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def own_overlap_check(gm: torch.fx.GraphModule) -> list[dict]:
    """Interval check of a whole planned program; returns problem records.

    Per level: two specs with different storage roots, the same mem_id, overlapping
    lifetimes (inclusive node indices) and overlapping bytes [offset, offset+allocated).
    Across levels (control flow): a submodule's tensors live in [0, its arena) of each
    mem_id and must stay inside it, and a parent tensor that is live at the control-flow
    node must not reach into that arena.
    """
    problems = []
    for path, level in graph_levels(gm):
        specs = _planned_specs(level)
        where = "/".join(path) or "<top>"
        sizes = level.meta.get("non_const_buffer_sizes")
        for (na, a), (nb, b) in itertools.combinations(specs, 2):
            if a.mem_id != b.mem_id or storage_root(a) is storage_root(b):
                continue
            la, lb = _lifetime(a), _lifetime(b)
            if la is None or lb is None or not _ivl_overlap(la, lb):
                continue
            ba = (a.mem_offset, a.mem_offset + a.allocated_memory - 1)
            bb = (b.mem_offset, b.mem_offset + b.allocated_memory - 1)
            if a.allocated_memory and b.allocated_memory and _ivl_overlap(ba, bb):
                problems.append(
                    {
                        "level": where,
                        "a": na,
                        "b": nb,
                        "mem_id": a.mem_id,
                        "a_bytes": list(ba),
                        "b_bytes": list(bb),
                        "a_lifetime": list(la),
                        "b_lifetime": list(lb),
                    }
                )
        for name, s in specs:  # inside the level's own arena
            if (
                sizes
                and s.mem_id < len(sizes)
                and s.mem_offset + s.allocated_memory > sizes[s.mem_id]
            ):
                problems.append(
                    {
                        "level": where,
                        "a": name,
                        "mem_id": s.mem_id,
                        "a_bytes": [s.mem_offset, s.mem_offset + s.allocated_memory - 1],
                        "arena": sizes[s.mem_id],
                        "why": "outside its level's arena",
                    }
                )
        for idx, node in enumerate(level.graph.nodes):
            if not is_control_flow(node):
                continue
            arena: list[int] = []
            for attr in node.args:
                sub = (
                    getattr(level, attr.target, None)
                    if isinstance(attr, torch.fx.Node) and attr.op == "get_attr"
                    else None
                )
                for i, size in enumerate(
                    getattr(sub, "meta", {}).get("non_const_buffer_sizes", []) or []
                ):
                    arena.extend([0] * (i + 1 - len(arena)))
                    arena[i] = max(arena[i], size)
            for name, s in specs:
                lt = _lifetime(s)
                if lt is None or not (lt[0] <= idx <= lt[1]) or s.mem_id >= len(arena):
                    continue
                if s.allocated_memory and s.mem_offset < arena[s.mem_id]:
                    problems.append(
                        {
                            "level": where,
                            "a": name,
                            "b": f"{node.name} submodules",
                            "mem_id": s.mem_id,
                            "a_bytes": [s.mem_offset, s.mem_offset + s.allocated_memory - 1],
                            "b_bytes": [0, arena[s.mem_id] - 1],
                            "a_lifetime": list(lt),
                            "why": "live across a control-flow node inside its submodules' arena",
                        }
                    )
    return problems


def run_verifier(gm: torch.fx.GraphModule, graph_signature: Any) -> list[dict]:
    """ExecuTorch's own `memory_planning.Verifier` on every level (it only checks the
    graph it is given). Top level: inputs, outputs and mutable buffers are planned;
    control-flow submodules: inputs are the parent's tensors, outputs are planned."""
    from executorch.exir.memory_planning import Verifier

    problems = []
    for path, level in graph_levels(gm):
        top = not path
        verifier = Verifier(
            level,
            alloc_graph_input=top,
            alloc_graph_output=True,
            alloc_mutable_buffers=True,
            graph_signature=graph_signature if top else None,
        )
        for check in ("verify_storage_reuse", "verify_graph_input_output"):
            try:
                getattr(verifier, check)()
            except Exception as e:  # InternalError / AssertionError: the plan failed the check
                problems.append(
                    {
                        "level": "/".join(path) or "<top>",
                        "verifier": check,
                        "error": f"{type(e).__name__}: {e}"[:500],
                    }
                )
    return problems


def check_overlap(
    gm: torch.fx.GraphModule, graph_signature: Any, algo: str, device: str = "cpu"
) -> list[Divergence]:
    """exir.overlap from both ExecuTorch's Verifier and our own interval check."""
    stage = f"memory-planning[{algo}]"
    out = []
    for p in run_verifier(gm, graph_signature)[:MAX_PER_KIND]:
        out.append(
            Divergence(
                "exir.overlap",
                stage,
                f"ExecuTorch Verifier.{p['verifier']} rejects the {algo} plan at {p['level']}: "
                f"{p['error']}",
                device,
                p | {"algo": algo},
            )
        )
    for p in own_overlap_check(gm)[:MAX_PER_KIND]:
        what = p.get("why") or "live at the same time and share bytes"
        other = f" and {p['b']}" if "b" in p else ""
        out.append(
            Divergence(
                "exir.overlap",
                stage,
                f"{algo} plan at {p['level']}: {p['a']}{other} {what} "
                f"(mem_id {p['mem_id']}, bytes {p.get('a_bytes')} / "
                f"{p.get('b_bytes', p.get('arena'))})",
                device,
                p | {"algo": algo},
            )
        )
    return out


# ---------------------------------------------------------------------------------------
# exir.under-allocation: planned bytes against what eager produced


def check_under_allocation(
    planned: list[PlannedTensor], values: dict, stage: str, device: str = "cpu"
) -> tuple[list[Divergence], dict[str, int]]:
    """Every planned, mapped tensor holds what eager produced for its ATen node.

    Fires when eager's tensor has more elements than the planned (upper-bound) shape or
    more bytes (numel * element size) than `allocated_memory`. Returns the divergences
    and counts of checked / unmapped / not-reached tensors.
    """
    stats = {"checked": 0, "unmapped": 0, "not-reached": 0}
    bad = []
    for pt in planned:
        spec = pt.spec
        if spec.const or spec.mem_offset is None or pt.how == "getitem":
            continue
        if not pt.mapped:
            stats["unmapped"] += 1
            continue
        value = actual_value(pt, values)
        if not isinstance(value, torch.Tensor):
            stats["not-reached"] += 1
            continue
        stats["checked"] += 1
        cap = math.prod(int(s) for s in spec.shape)
        need_bytes = value.numel() * value.element_size()
        if value.numel() > cap or need_bytes > spec.allocated_memory:
            bad.append(
                {
                    "node": pt.where,
                    "aten": pt.aten_node,
                    "planned_shape": [int(s) for s in spec.shape],
                    "planned_bytes": int(spec.allocated_memory),
                    "actual_shape": list(value.shape),
                    "actual_bytes": need_bytes,
                    "dtype": str(value.dtype),
                }
            )
    out = [
        Divergence(
            "exir.under-allocation",
            stage,
            f"{b['node']}: planned {b['planned_shape']} ({b['planned_bytes']} bytes) but eager "
            f"produced {b['actual_shape']} ({b['actual_bytes']} bytes, {b['dtype']})",
            device,
            b | {"count": len(bad)},
        )
        for b in bad[:MAX_PER_KIND]
    ]
    return out, stats


# ---------------------------------------------------------------------------------------
# exir.pipeline-variance: the memory plan must not depend on where SpecPropPass re-runs


_NAME_SUFFIX = re.compile(r"^(.*)_(\d+)$")


def _row_names(graph: torch.fx.Graph) -> dict[torch.fx.Node, str]:
    """Each node's name for plan rows, as a fresh trace of the graph would name it.

    A re-trace (SpecPropPass is an ExportPass) names operator nodes anew: once a dead
    node was removed, the live `aten_gt_scalar_1` becomes `aten_gt_scalar` (and a
    getitem `getitem_1` becomes `getitem`), the same plan under another name. Operator
    nodes are named like torch.fx's namespace does, by the name without its `_<n>`
    suffix and their order among the graph's nodes of that name (`aten_gt_scalar`,
    `aten_gt_scalar_1`, ...); a getitem by what it selects. Placeholders keep theirs."""
    names: dict[torch.fx.Node, str] = {}
    seen: Counter = Counter()
    for node in graph.nodes:
        if node.op != "call_function":
            names[node] = node.name
        elif node.target is operator.getitem and isinstance(node.args[0], torch.fx.Node):
            names[node] = f"getitem({names.get(node.args[0], node.args[0].name)}, {node.args[1]})"
        else:
            m = _NAME_SUFFIX.match(node.name)
            base = m.group(1) if m else node.name
            names[node] = base if not seen[base] else f"{base}_{seen[base]}"
            seen[base] += 1
    return names


def plan_fingerprint(gm: torch.fx.GraphModule) -> list[tuple]:
    """The memory plan as comparable rows: arena sizes per level, and for every node its
    specs' (shape, dtype, mem_id, mem_offset, allocated_memory). Nodes are named as a
    re-trace would name them (`_row_names`), so renumbering is no plan change; any live
    tensor's planned shape, offset or size and every arena size still is."""
    rows: list[tuple] = []
    for path, level in graph_levels(gm):
        rows.append(
            ("/".join(path), "<arena>", tuple(level.meta.get("non_const_buffer_sizes") or ()))
        )
        names = _row_names(level.graph)
        for node in level.graph.nodes:
            if is_alloc(node.target) or node.op == "output":
                continue  # alloc/output hold their producers' specs (and the output's name varies)
            name = names[node]
            for index, spec in tensor_specs(node):
                rows.append(
                    (
                        "/".join(path),
                        name if index is None else f"{name}[{index}]",
                        (
                            tuple(
                                int(s) if not isinstance(s, torch.SymInt) else str(s)
                                for s in spec.shape
                            ),
                            str(spec.dtype),
                            spec.mem_id,
                            spec.mem_offset,
                            spec.allocated_memory,
                        ),
                    )
                )
    return rows


def compare_plans(
    base: list[tuple], other: list[tuple], point: str, device: str = "cpu"
) -> list[Divergence]:
    if base == other:
        return []
    b, o = {r[:2]: r[2] for r in base}, {r[:2]: r[2] for r in other}
    changed = [
        {
            "at": "/".join(filter(None, k)),
            "plan": list(map(str, b.get(k, ()))) if k in b else None,
            "variant": list(map(str, o.get(k, ()))) if k in o else None,
        }
        for k in list(b) + [k for k in o if k not in b]
        if b.get(k) != o.get(k)
    ]
    first = changed[0] if changed else {"at": "?"}
    return [
        Divergence(
            "exir.pipeline-variance",
            f"pipeline-variance[{point}]",
            f"re-running SpecPropPass {point} changes the memory plan at {first['at']}: "
            f"{first.get('plan')} -> {first.get('variant')} ({len(changed)} rows differ)",
            device,
            {"point": point, "changed": changed[:20]},
        )
    ]
