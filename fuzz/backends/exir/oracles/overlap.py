"""exir.overlap: no two tensors live at the same time share bytes, at every graph level.

Two judges of one planned program: ExecuTorch's own `memory_planning.Verifier` (run
on every level, since it only checks the graph it is given) and an interval check of
our own that also covers what the Verifier cannot see across levels (control-flow
submodules own the start of the arena). Pure: both read a planned graph module.

The Verifier reads `spec.lifetime`, which the planner itself computed, so a planner that
ends a tensor's life before its last use passes it. Our interval check computes each
planned tensor's lifetime from the graph instead (`harness_lifetimes`: from the node that
makes it, or the graph's start for an input, to the last node that takes it, through
lists and tuples of operands, control-flow operands, views through their bases, the
output node, and to the end for a mutable buffer), and checks the plan's byte ranges
against those. A planner lifetime shorter than ours is the plan fact
`lifetime-short` (`short_lifetimes`).
"""

from __future__ import annotations

import itertools
from typing import Any

import torch
from executorch.exir.memory_planning import Verifier

from fuzz.backends.exir.graph import graph_levels, is_control_flow, storage_root, tensor_specs
from fuzz.backends.exir.oracles.plan import MAX_PER_KIND
from fuzz.divergence import Divergence
from fuzz.errors import error_text


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
    """The planner's lifetime of `spec` (a _ViewSpec reads its base's)."""
    lt = spec.lifetime
    if lt is None or lt[0] is None or lt[1] is None:
        return None
    return int(lt[0]), int(lt[1])


def _mutable_buffer_inputs(graph_signature: Any) -> set[str]:
    """Placeholder names of the buffers the program mutates (they live to the end)."""
    if graph_signature is None:
        return set()
    to_buffer = dict(getattr(graph_signature, "inputs_to_buffers", {}) or {})
    mutated = set((getattr(graph_signature, "buffers_to_mutate", {}) or {}).values())
    return {name for name, buffer in to_buffer.items() if buffer in mutated}


def _nodes_in(value: Any) -> list[torch.fx.Node]:
    """The fx nodes in an argument, through lists, tuples and dicts."""
    if isinstance(value, torch.fx.Node):
        return [value]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _nodes_in(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _nodes_in(v)]
    return []


def harness_lifetimes(
    level: torch.fx.GraphModule, graph_signature: Any = None
) -> dict[int, tuple[int, int]]:
    """Each planned storage's lifetime (inclusive node indices of `level`), computed from
    the graph, keyed by id() of its storage root: from the node that makes it (0 for an
    input) to the last node that takes it or a view of it (the node before the output
    node for what the program returns), or to the end for a mutable buffer. A planner
    lifetime must cover this one."""
    nodes = list(level.graph.nodes)
    last = len(nodes) - 1
    mutable = _mutable_buffer_inputs(graph_signature)
    spans: dict[int, list[int]] = {}

    def touch(spec: Any, idx: int, *, start: int | None = None, end: int | None = None):
        if spec.const:
            return
        span = spans.setdefault(id(storage_root(spec)), [idx, idx])
        span[0] = min(span[0], idx if start is None else start)
        span[1] = max(span[1], idx if end is None else end)

    for idx, node in enumerate(nodes):
        if node.op == "get_attr":
            continue
        for _, spec in tensor_specs(node):
            if node.op == "placeholder":
                touch(spec, idx, start=0, end=last if node.name in mutable else None)
            else:
                touch(spec, idx)
        # Nothing runs at the output node: what it returns must live through the last
        # node before it (where ExecuTorch's own count stops for a mutated input, whose
        # write-back `copy_` aliases it).
        at = idx - 1 if node.op == "output" else idx
        for arg in _nodes_in((node.args, node.kwargs)):
            if arg.op != "get_attr":
                for _, spec in tensor_specs(arg):
                    touch(spec, at)
    return {k: (a, b) for k, (a, b) in spans.items()}


def short_lifetimes(gm: torch.fx.GraphModule, graph_signature: Any = None) -> list[str]:
    """Planned tensors whose planner lifetime does not cover their use, at any level:
    "aten_add_tensor: planned [3, 4], used [3, 6]" (the plan fact `lifetime-short`)."""
    out = []
    for path, level in graph_levels(gm):
        ours = harness_lifetimes(level, graph_signature if not path else None)
        seen = set()
        for name, spec in _planned_specs(level):
            root = storage_root(spec)
            if id(root) in seen or id(root) not in ours:
                continue
            seen.add(id(root))
            planned, used = _lifetime(root), ours[id(root)]
            if planned is not None and (planned[0] > used[0] or planned[1] < used[1]):
                where = "/".join(path)
                out.append(
                    f"{where + ':' if where else ''}{name}: planned {list(planned)}, "
                    f"used {list(used)}"
                )
    return out


def _ivl_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def own_overlap_check(gm: torch.fx.GraphModule, graph_signature: Any = None) -> list[dict]:
    """Interval check of a whole planned program; returns problem records.

    Per level: two specs with different storage roots, the same mem_id, overlapping
    lifetimes (inclusive node indices, `harness_lifetimes`) and overlapping bytes
    [offset, offset+allocated). A record says the planner's lifetimes too, and "why"
    when those do not overlap (the planner ended a life before its last use).
    Across levels (control flow): a submodule's tensors live in [0, its arena) of each
    mem_id and must stay inside it, and a parent tensor that is live at the control-flow
    node must not reach into that arena.
    """
    problems = []
    for path, level in graph_levels(gm):
        specs = _planned_specs(level)
        where = "/".join(path) or "<top>"
        sizes = level.meta.get("non_const_buffer_sizes")
        ours = harness_lifetimes(level, graph_signature if not path else None)

        def lifetime(spec: Any) -> tuple[int, int] | None:
            return ours.get(id(storage_root(spec))) or _lifetime(spec)

        for (na, a), (nb, b) in itertools.combinations(specs, 2):
            if a.mem_id != b.mem_id or storage_root(a) is storage_root(b):
                continue
            la, lb = lifetime(a), lifetime(b)
            if la is None or lb is None or not _ivl_overlap(la, lb):
                continue
            ba = (a.mem_offset, a.mem_offset + a.allocated_memory - 1)
            bb = (b.mem_offset, b.mem_offset + b.allocated_memory - 1)
            if a.allocated_memory and b.allocated_memory and _ivl_overlap(ba, bb):
                record = {
                    "level": where,
                    "a": na,
                    "b": nb,
                    "mem_id": a.mem_id,
                    "a_bytes": list(ba),
                    "b_bytes": list(bb),
                    "a_lifetime": list(la),
                    "b_lifetime": list(lb),
                }
                pa, pb = _lifetime(a), _lifetime(b)
                if pa is not None and pb is not None and not _ivl_overlap(pa, pb):
                    record["a_planned_lifetime"], record["b_planned_lifetime"] = list(pa), list(pb)
                    record["why"] = (
                        "live at the same time and share bytes; the planner's lifetimes "
                        f"{list(pa)} and {list(pb)} end a life before its last use"
                    )
                problems.append(record)
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
                lt = lifetime(s)
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


def views_exceeding_base(gm: torch.fx.GraphModule) -> list[str]:
    """Planned views (`memory.view`, a `_ViewSpec`) that claim more bytes than the storage
    they view: "aten_view_copy_default (96 bytes) over its base's 32". A view's bytes lie
    at its base's offset, so such a view reaches into other tensors, or past the arena.
    (Its upper bound, from the view's own shape expression, can exceed the base's:
    `x.unflatten(0, (n, x.shape[0] // n))` is bounded (7, 3) for an x of at most 7.)"""
    out = []
    for _, level in graph_levels(gm):
        for name, spec in _planned_specs(level):
            root = storage_root(spec)
            if root is not spec and spec.allocated_memory > root.allocated_memory:
                out.append(
                    f"{name} ({spec.allocated_memory} bytes) over its base's "
                    f"{root.allocated_memory}"
                )
    return out


def run_verifier(gm: torch.fx.GraphModule, graph_signature: Any) -> list[dict]:
    """ExecuTorch's own `memory_planning.Verifier` on every level (it only checks the
    graph it is given). Top level: inputs, outputs and mutable buffers are planned;
    control-flow submodules: inputs are the parent's tensors, outputs are planned."""
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
                        "error": error_text(e),
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
    for p in own_overlap_check(gm, graph_signature)[:MAX_PER_KIND]:
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
