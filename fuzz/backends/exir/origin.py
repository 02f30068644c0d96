"""Where the edge program first departs from the ATen program on one call.

One lowering fault shows as several kinds of divergence: a promotion pass that computes
int instead of float gives a wrong runtime result in one program and an under-allocated
buffer (a narrower dtype) in another; a decomposition that forgets to swap a size-1 dim
gives a wrong shape here and a short buffer there. What they share is the first node at
which the lowered program computes something else than the program it was lowered from.

`first_departure(aten_ep, edge_ep, args)` runs both programs node by node on the call's
inputs (fuzz.backends.exir.interpret: the ATen program is the eager reference, the edge
program runs its own operators' real kernels) and walks the edge program in order. Each
edge node descends from one ATen node (`meta['from_node']`, fuzz.backends.exir.mapping);
the *last* edge node descended from an ATen node is the one that holds that node's
value (a decomposition's intermediates and an inserted cast come before it). The first
such node whose value differs from its ATen node's value is the departure, by its
nature: `dtype`, `shape` or `values` (floats within the per-dtype tolerances of
fuzz.oracles.results). A multi-output ATen node (`tensor_split`, `unbind`, ...) that the
edge program computes as one node per piece it uses (`slice_copy`, `select_copy`) is not
compared with the one piece holding it: a wrong piece departs at the node that uses it.
(Compared, the tuple of every piece against one tensor was a `shape` departure of each
such program on every call.) Nodes inside control-flow branches are compared the same way
when both programs ran the branch under the same name.

None when the two programs agree on every node they share: the fault, if any, is later
(to_executorch, the plan, the runtime) and this locates nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.backends.base import LaneReport
from fuzz.backends.exir.graph import graph_levels
from fuzz.backends.exir.interpret import interpret
from fuzz.backends.exir.mapping import provenance_root
from fuzz.errors import error_text
from fuzz.facts import target_name
from fuzz.oracles.results import TOLERANCES
from fuzz.tensors import copy_args


def op_class(target: Any) -> str:
    """ "pointwise" for ops tagged pointwise (they share one dtype rule: type promotion),
    "view" for ops whose output aliases an input, else the op's own name."""
    tags = getattr(target, "tags", ()) or ()
    if torch.Tag.pointwise in tags:
        return "pointwise"
    schema = getattr(target, "_schema", None)
    if schema is not None and not schema.is_mutable:
        if any(r.alias_info is not None for r in schema.returns):
            return "view"
    return target_name(target)


def difference(expected: Any, actual: Any) -> str | None:
    """The nature of the first difference between two node values (None: the same)."""
    exp, act = pytree.tree_leaves(expected), pytree.tree_leaves(actual)
    if len(exp) != len(act):
        return "shape"
    for e, a in zip(exp, act):
        if isinstance(e, torch.Tensor) != isinstance(a, torch.Tensor):
            return "values"
        if not isinstance(e, torch.Tensor):
            if isinstance(e, (int, float, bool)) and e != a:
                return "values"
            continue
        if e.dtype != a.dtype:
            return "dtype"
        if tuple(e.shape) != tuple(a.shape):
            return "shape"
        if e.numel() == 0:
            continue
        if e.dtype in TOLERANCES:
            rtol, atol = TOLERANCES[e.dtype]
            same = torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True).all()
        else:
            same = torch.equal(a, e)
        if not bool(same):
            return "values"
    return None


def operand_kinds(node: torch.fx.Node, values: dict, path: tuple) -> str:
    """The kinds of an ATen node's tensor and scalar operands on this call, sorted and
    joined: "0-dim" (a 0-d tensor), "tensor" (a tensor with dims), "number" (a Python or
    symbolic number where the schema takes a Tensor or a Scalar: export keeps `x * 2.0` as
    `aten.mul.Tensor(x, 2.0)`). Other arguments (dims, dtypes, flags) are not operands."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return ""
    kinds = set()
    for i, arg in enumerate(schema.arguments):
        if not isinstance(arg.type, (torch.TensorType, torch.NumberType)):
            continue
        given = node.args[i] if i < len(node.args) else node.kwargs.get(arg.name)
        value = values.get((path, given.name)) if isinstance(given, torch.fx.Node) else given
        if isinstance(value, torch.Tensor):
            kinds.add("0-dim" if value.dim() == 0 else "tensor")
        elif isinstance(value, (int, float)):
            kinds.add("number")
    return ",".join(sorted(kinds))


def first_departure(aten_ep: Any, edge_ep: Any, args: tuple) -> dict[str, str] | None:
    """{"op", "class", "nature", "node"} of the first edge node whose value differs from
    its ATen node's on `args`, or None (module docstring); plus, when some node departs
    by dtype (this one or a later one), "dtype_op" and "dtype_operands" of the first such
    ATen node (`operand_kinds`): a promotion fault shows there even when an earlier node
    departs by values (a low-precision reduction before a mixed-type op).

    Raises what interpreting the ATen program raises. The edge program raising is judged
    by the nodes that ran before it did: a departure among them is the origin (a wrong
    index computed by a lowered `//` departs there, then fails the indexing op that
    reads it, as the runtime's kernel did), else what it raised is raised."""
    reference = interpret(aten_ep, copy_args(args), snapshot=True)
    lowered: dict = {}
    try:
        interpret(edge_ep, copy_args(args), snapshot=True, into=lowered)
    except Exception:
        found = _walk(aten_ep, edge_ep, reference, lowered)
        if found is None:
            raise
        return found
    return _walk(aten_ep, edge_ep, reference, lowered)


def _walk(aten_ep: Any, edge_ep: Any, reference: dict, lowered: dict) -> dict[str, str] | None:
    """`first_departure`'s walk over the values both programs recorded."""
    aten_nodes = {
        (path, n.name): n
        for path, gm in graph_levels(aten_ep.graph_module)
        for n in gm.graph.nodes
        if n.op == "call_function"
    }
    found: dict[str, str] | None = None
    for path, gm in graph_levels(edge_ep.graph_module):
        holder: dict[str, torch.fx.Node] = {}  # ATen node name -> last edge node from it
        for n in gm.graph.nodes:
            if n.op == "call_function" and (root := provenance_root(n)) is not None:
                if not _holds_a_number(n):
                    holder[root] = n
        last = {id(n): root for root, n in holder.items()}
        for n in gm.graph.nodes:
            root = last.get(id(n))
            source = aten_nodes.get((path, root)) if root is not None else None
            if source is None or (path, n.name) not in lowered or (path, root) not in reference:
                continue
            expected, actual = reference[(path, root)], lowered[(path, n.name)]
            if isinstance(expected, (tuple, list)) and isinstance(actual, torch.Tensor):
                continue  # one piece of a multi-output node: judged where it is used
            nature = difference(expected, actual)
            if nature == "values" and _values_unspecified(source.target):
                nature = None
            if nature is not None and found is None:
                found = {
                    "op": target_name(source.target),
                    "class": op_class(source.target),
                    "nature": nature,
                    "node": root,
                }
            if nature == "dtype":
                found["dtype_op"] = target_name(source.target)
                found["dtype_operands"] = operand_kinds(source, reference, path)
                return found
    return found


# Ops whose values are whatever memory held (their dtype and shape are still compared).
_UNINITIALIZED = frozenset(
    {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}
)


def _values_unspecified(target: Any) -> bool:
    """An op whose values no two runs need agree on: uninitialized memory (`new_empty`,
    filled by a later op) or a seeded random op. Compared by values, every program that
    fills a `new_empty` departed there on the stock stacks."""
    packet = getattr(getattr(target, "_overloadpacket", None), "__name__", "")
    tags = getattr(target, "tags", ()) or ()
    return packet in _UNINITIALIZED or torch.Tag.nondeterministic_seeded in tags


def _holds_a_number(n: torch.fx.Node) -> bool:
    """A size computed from a tensor (`sym_size` of a data-dependent result, for a
    `torch._check` on it) descends from that tensor's node (`meta['from_node']`) but holds
    a number, never its value: compared with it, every such program departed at the op
    that made the tensor (bincount, "values") on the stock stacks."""
    return isinstance(n.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool, int, float))


def record_origin(report: LaneReport, index: int, name: str, find: Callable[[], Any]) -> None:
    """Record what `find()` locates on call `index` in report.details["<name>_by_call"]
    (where fuzz.facts finds it), counted "<name>-found" or "<name>-none"; `find` raising
    is counted ("<name>-error", details["<name>_errors"]), not judged: it locates
    nothing. `name` is "origin" or "runtime-origin"."""
    key = name.replace("-", "_")
    try:
        found = find()
    except Exception as e:
        report.counters[f"{name}-error"] += 1
        report.details.setdefault(f"{key}_errors", []).append(
            f"call[{index}]: {error_text(e, 200)}"
        )
        return
    report.counters[f"{name}-found" if found else f"{name}-none"] += 1
    if found:
        report.details.setdefault(f"{key}_by_call", {})[index] = found


def locate(report: LaneReport, index: int, aten_ep: Any, edge_ep: Any, fed: tuple) -> None:
    """The first departure on call `index`, recorded as "origin" (`record_origin`);
    either program raising on the call locates nothing."""
    record_origin(report, index, "origin", lambda: first_departure(aten_ep, edge_ep, fed))
