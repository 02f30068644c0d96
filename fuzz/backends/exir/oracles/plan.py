"""Memory-plan oracles for the EXIR lane: specs, bounds, allocation.

All functions here are pure: they read facts the lane gathered (spec snapshots, planned
tensors mapped to their reference nodes, the exported ATen program, values recorded on
a call) and return `Divergence` records; the lane decides when to call them. Kinds
emitted: exir.spec-meta, exir.bound-loss, exir.under-allocation. The overlap and
pipeline-variance judgements of the same plan are in overlap.py and
variance.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import sympy
import torch
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from fuzz.backends.exir.graph import (
    PlannedTensor,
    SpecRecord,
    actual_value,
    dim_bound,
    graph_levels,
    shape_envs,
    unbounded,
)
from fuzz.divergence import Divergence

MAX_PER_KIND = 8  # divergences of one kind per check; the rest are counted in data

# ---------------------------------------------------------------------------------------
# exir.spec-meta: the spec SpecPropPass built must describe the node's meta['val']


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
                if not unbounded(upper):
                    upper = int(upper) - (1 if strict else 0)
                    if (unbounded(cur.upper) or upper < int(cur.upper)) and upper >= cur.lower:
                        ranges[lo] = ValueRanges(cur.lower, upper)
            if isinstance(hi, sympy.Symbol) and hi in ranges:  # lo <= hi: raise hi's lower
                lower = bound_sympy(lo, ranges).lower
                cur = ranges[hi]
                if lower not in (-int_oo, -sympy.oo):
                    lower = int(lower) + (1 if strict else 0)
                    if lower > cur.lower and (unbounded(cur.upper) or lower <= cur.upper):
                        ranges[hi] = ValueRanges(lower, cur.upper)


def declared_ranges(ep: torch.export.ExportedProgram, expanded: bool = False) -> dict:
    """Symbol -> ValueRanges the exported program declares.

    The shape env's var_to_range intersected with `ep.range_constraints`, then tightened
    with the program's runtime assertions (torch._check, in fake kernels or user code:
    the shape env's deferred runtime asserts and the graph's _assert_scalar nodes), e.g.
    `u0 <= 3*s77` with s77 in [2, 8] caps u0 at 24 although var_to_range says int_oo.

    `expanded`: each assertion multiplied out first, as torch's ShapeEnv refines a
    symbol's range (`_refine_ranges` simplifies, then bounds by interval arithmetic):
    `u0 <= s4*(s40 - 1)` becomes `u0 <= s4*s40 - s4`, whose interval bound is looser
    (13, not 12, for s4 in [2, 3] and s40 in [2, 5]: s4 counts once at 3, once at 2).
    """
    env = next(iter(shape_envs(ep.graph_module)), None)
    ranges = dict(env.var_to_range) if env is not None else {}
    for sym, vr in ep.range_constraints.items():
        ranges[sym] = ranges[sym] & vr if sym in ranges else vr
    rels = _assert_exprs(ep.graph_module)
    if env is not None:
        rels += [ra.expr for ras in env.deferred_runtime_asserts.values() for ra in ras]
    _refine(ranges, [sympy.expand(r) for r in rels] if expanded else rels)
    return ranges


def numel_bound(val: Any, ranges: dict) -> int | None:
    """Upper bound of a (fake) tensor's element count under `ranges`; None: unbounded."""
    total = 1
    for s in val.shape:
        if isinstance(s, torch.SymInt):
            upper = bound_sympy(s.node.expr, ranges).upper
            if unbounded(upper):
                return None
            total *= int(upper)
        else:
            total *= int(s)
    return total


def _aten_node(pt: PlannedTensor, aten_gm: torch.fx.GraphModule) -> torch.fx.Node | None:
    mod = aten_gm
    for name in pt.aten_path or ():
        mod = getattr(mod, name)
    return next((n for n in mod.graph.nodes if n.name == pt.aten_node), None)


def _aten_meta(pt: PlannedTensor, aten_gm: torch.fx.GraphModule) -> Any:
    node = _aten_node(pt, aten_gm)
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
        bounds = [dim_bound(s) for s in spec.shape]
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
    """exir.bound-loss: each ATen-mapped tensor's planned elements vs the declared bound.

    Tensors mapped to the edge program are left out: the declared bounds are about the
    exported ATen program's symbols. needed = upper bound of the ATen node's
    meta['val'] numel under `declared_ranges`; planned = numel of the final spec (or
    the snapshot's bound when to_executorch died before planning). Diverges when
    planned is unbounded while needed is finite, or planned > factor(pt) * needed. The
    table (one row per mapped tensor) goes into the report for people; planned < needed
    is legal (EXIR may know more) and only listed.

    A lost bound shows again at every node computed from the tensor that lost it (a
    `cat` of two over-planned tensors is over-planned by as much), so only the *origins*
    are divergences: a lost node is `inherited` (a table row, counted in the origins'
    data as `downstream`) when one of its ATen inputs lost its bound too and it lost no
    more than that input did (its planned/needed ratio is not larger, or both are
    unbounded). A node that loses more than its inputs is an origin of its own.
    """
    ranges = declared_ranges(ep)
    table, bad = [], []
    for pt in planned:
        if pt.aten_node is None or pt.how == "getitem" or pt.spec.const:
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
            bad.append((pt, row))
    _mark_interval_slack(bad, ep)
    checked = {pt.aten_key for pt in planned if pt.aten_node}
    origins = _origins(bad, checked, ep.graph_module)
    out = [
        Divergence(
            "exir.bound-loss",
            "plan-bounds",
            f"{r['node']}: planned {'unbounded (int_oo)' if r['planned'] is None else r['planned']}"
            f" elements, the program declares at most {r['needed']} (factor {r['factor']})",
            device,
            dict(r, lost=len(bad), downstream=len(bad) - len(origins)),
        )
        for r in origins[:MAX_PER_KIND]
    ]
    return out, table


def _mark_interval_slack(lost: list[tuple[PlannedTensor, dict]], ep) -> None:
    """Tag a lost bound that torch's own interval arithmetic explains: planned no more
    than the bound under the expanded assertions (`declared_ranges(expanded=True)`),
    data["slack"] = "expanded-interval" and data["needed_expanded"]. The tag is a fact
    for the registry (corpus/torch_value_ranges_expanded_bound.py), not a pass: the
    divergence stays, so the over-allocation is counted where it shows."""
    if not lost:
        return
    ranges = declared_ranges(ep, expanded=True)
    for pt, row in lost:
        loose = numel_bound(_aten_meta(pt, ep.graph_module), ranges)
        if row["planned"] is not None and loose is not None and row["planned"] <= loose:
            row.update(slack="expanded-interval", needed_expanded=loose)


def _origins(
    lost: list[tuple[PlannedTensor, dict]], planned: set[tuple], aten_gm: torch.fx.GraphModule
) -> list[dict]:
    """The rows of `lost` whose loss is not inherited from an ATen input (check_bounds);
    the others are marked `inherited`. An input that holds no planned tensor of its own
    (a `getitem`, a view) is looked through to its inputs; one that was planned within
    its bound stops the search."""

    def ratio(row: dict) -> float:
        return math.inf if row["ratio"] is None else row["ratio"]

    ratio_of: dict[tuple, float] = {}  # (aten path, node name) -> worst ratio lost there
    for pt, row in lost:
        ratio_of[pt.aten_key] = max(ratio_of.get(pt.aten_key, 0.0), ratio(row))

    def inherited_ratio(path: tuple, node: torch.fx.Node, seen: set) -> float:
        worst = -1.0
        for n in node.all_input_nodes:
            if n in seen:
                continue
            seen.add(n)
            if (path, n.name) in ratio_of:
                worst = max(worst, ratio_of[(path, n.name)])
            elif (path, n.name) not in planned:
                worst = max(worst, inherited_ratio(path, n, seen))
        return worst

    out = []
    for pt, row in lost:
        node = _aten_node(pt, aten_gm)
        if node is None or ratio(row) > inherited_ratio(pt.aten_key[0], node, set()):
            out.append(row)
        else:
            row["inherited"] = True
    return out


# ---------------------------------------------------------------------------------------
# exir.under-allocation: planned bytes against what the reference produced


def check_under_allocation(
    planned: list[PlannedTensor],
    values: dict,
    stage: str,
    device: str = "cpu",
    edge_values: dict | None = None,
) -> tuple[list[Divergence], dict[str, int]]:
    """Every planned, mapped tensor holds what its reference node produced on the call.

    `values` are the exported ATen program's node values (eager, node by node),
    `edge_values` the edge program's, for tensors mapped there (decomposition
    intermediates; fuzz/backends/exir/mapping.py). Fires when the reference tensor has
    more elements than the planned (upper-bound) shape or more bytes (numel * element
    size) than `allocated_memory`. Returns the divergences and counts of checked /
    unmapped / not-reached tensors.
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
        value = actual_value(pt, values, edge_values)
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
                    "reference": pt.reference,
                    "by": "eager" if pt.aten_node is not None else "the edge program",
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
            f"{b['node']}: planned {b['planned_shape']} ({b['planned_bytes']} bytes) but "
            f"{b['by']} produced {b['actual_shape']} ({b['actual_bytes']} bytes, {b['dtype']})",
            device,
            b | {"count": len(bad)},
        )
        for b in bad[:MAX_PER_KIND]
    ]
    return out, stats
