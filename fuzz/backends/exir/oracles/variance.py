"""exir.pipeline-variance: the memory plan must not depend on where SpecPropPass re-runs.

The lane re-runs the passes of to_executorch with an extra SpecPropPass inserted
(fuzz/backends/exir/mirror.py: `mirror_points`); here both plans become
comparable rows (`plan_fingerprint`) and any difference is judged (`compare_plans`).
"""

from __future__ import annotations

import operator
import re
from collections import Counter

import torch

from fuzz.backends.exir.graph import graph_levels, is_alloc, tensor_specs
from fuzz.divergence import Divergence

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
