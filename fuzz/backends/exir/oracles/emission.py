"""exir.emission: the emitted program's size lists say what the graph says.

The emitter turns each `int[]`/`SymInt[]` operand of a node (a view's or an expand's
sizes, a permutation, reduced dims, a factory's sizes) into an `IntList` of value ids,
one per item: a constant becomes a fresh `Int` value, a size computed at run time is the
id of the value an earlier instruction writes (`sym_size`, `executorch_prim::mul`, ...).
A fault there (items boxed out of order, a symbolic size frozen to its example) leaves
the edge program right and the plan right, and shows only as whatever a later kernel
does with the wrong sizes: a wrong shape, a refused expand, a failed resize, a short
buffer, in one program after another. Read from the program itself, it shows once, as
itself, before anything runs.

`check_int_lists` pairs each kernel call of the top-level chain with the planned graph's
node it was emitted from (the next node in graph order whose op it runs and whose size
lists have the call's item counts: a view of a constant is folded and emits no call),
and the node's size lists with the call's, by the operator's schema. Item by item: a constant
of the graph must be an `Int` of that value that no instruction writes; a size the graph
computes must be a value some instruction writes. Pure: reads the emitted program and
the planned graph module. Programs it cannot pair (control flow, delegates, a call that
pairs with no node) are counted, not judged: `emission-unpaired`.
"""

from __future__ import annotations

from typing import Any

import torch

from fuzz.divergence import Divergence
from fuzz.facts import target_name

MAX_REPORTED = 3
_SKIPPED = ("getitem", "alloc", "free")  # nodes that emit no kernel call


def _op_name(target: Any) -> str:
    """A node target as the emitted program names its operator ("aten::expand_copy"): the
    schema's name for an operator, the function's name otherwise (the memory view)."""
    schema = getattr(target, "_schema", None) or getattr(
        getattr(target, "_op", None), "_schema", None
    )
    if schema is not None:
        return schema.name
    return getattr(target, "__name__", str(target))


def _base(name: str) -> str:
    """The op's own name: "aten::expand_copy" -> "expand_copy"; the runtime's view
    ("executorch_prim::et_view") is the graph's memory view ("view")."""
    base = name.split("::")[-1]
    return {"et_view": "view"}.get(base, base)


def _is_size(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, torch.fx.Node) and isinstance(x.meta.get("val"), (int, torch.SymInt))


def _paired_lists(node: torch.fx.Node, args: list[int], values: Any) -> list | None:
    """(the node's size list, the call's IntList) per size-list operand: by the operator's
    schema (the call's args are its arguments in order, defaults filled in), or, for a
    node without one (the memory view), the node's size lists and the call's in order.
    None when they do not pair."""
    from executorch.exir.schema import IntList

    schema = getattr(node.target, "_schema", None)
    if schema is None:
        operands = list(node.args) + list(node.kwargs.values())
        graph = [list(a) for a in operands if _is_size_list(a)]
        emitted = [values[a].val for a in args if isinstance(values[a].val, IntList)]
        return list(zip(graph, emitted)) if len(graph) == len(emitted) else None
    pairs = []
    for i, arg in enumerate(schema.arguments):
        if i >= len(args):
            return None
        if i < len(node.args):
            given = node.args[i]
        else:
            given = node.kwargs.get(arg.name, arg.default_value)
        emitted = values[args[i]].val
        if _is_size_list(given):
            if not isinstance(emitted, IntList):
                return None
            pairs.append((list(given), emitted))
    return pairs


def _is_size_list(a: Any) -> bool:
    return isinstance(a, (list, tuple)) and bool(a) and all(_is_size(x) for x in a)


def check_int_lists(
    program: Any, planned_gm: torch.fx.GraphModule, device: str
) -> tuple[list[Divergence], str | None]:
    """(exir.emission divergences, why the program was not checked: None when it was)."""
    from executorch.exir.schema import Int, KernelCall

    plan = program.execution_plan[0]
    if len(plan.chains) != 1:
        return [], "several chains"
    instructions = plan.chains[0].instructions
    if any(not isinstance(i.instr_args, KernelCall) for i in instructions):
        kinds = {type(i.instr_args).__name__ for i in instructions} - {"KernelCall"}
        if kinds - {"FreeCall"}:
            return [], f"instructions other than kernel calls ({', '.join(sorted(kinds))})"
    values, operators = plan.values, plan.operators
    written = {
        call.args[-1]
        for call in (i.instr_args for i in instructions)
        if isinstance(call, KernelCall) and call.args and isinstance(values[call.args[-1]].val, Int)
    }
    nodes = [
        n
        for n in planned_gm.graph.nodes
        if n.op == "call_function" and not any(s in target_name(n.target) for s in _SKIPPED)
    ]
    cursor, found = 0, []
    for index, instruction in enumerate(instructions):
        call = instruction.instr_args
        if not isinstance(call, KernelCall):
            continue
        op = operators[call.op_index].name
        # The call's node: the next one of its op whose size lists pair with the call's,
        # item counts included (a view of a constant is folded and emits no call).
        paired = None
        for k in range(cursor, len(nodes)):
            if _base(_op_name(nodes[k].target)) != _base(op):
                continue
            pairs = _paired_lists(nodes[k], call.args, values)
            if pairs is not None and all(len(g) == len(e.items) for g, e in pairs):
                paired = k, pairs
                break
        if paired is None:
            return [], f"instruction {index} ({op}) pairs with no node"
        at, pairs = paired
        node, cursor = nodes[at], at + 1
        for g, e in pairs:
            why = _list_mismatch(g, list(e.items), values, written)
            if why:
                found.append(
                    Divergence(
                        "exir.emission",
                        "to_executorch",
                        f"{node.name}: {op} size list {why}",
                        device,
                        {"node": node.name, "op": target_name(node.target), "instruction": index},
                    )
                )
    return found[:MAX_REPORTED], None


def _list_mismatch(graph: list[Any], items: list[int], values: Any, written: set[int]) -> str:
    """Why the emitted `items` are not the graph's list ("" when they are)."""
    from executorch.exir.schema import Int

    def show(x: Any) -> str:
        return x.name if isinstance(x, torch.fx.Node) else str(x)

    expected = "[" + ", ".join(show(x) for x in graph) + "]"
    for k, (g, v) in enumerate(zip(graph, items)):
        value = values[v].val
        if isinstance(g, torch.fx.Node):
            if v not in written:
                got = value.int_val if isinstance(value, Int) else type(value).__name__
                return (
                    f"item {k} is the constant {got} where the graph computes {g.name} {expected}"
                )
        elif v in written or not isinstance(value, Int) or value.int_val != g:
            got = (
                "a size computed at run time"
                if v in written
                else repr(getattr(value, "int_val", value))
            )
            return f"item {k} is {got} where the graph has the constant {g} {expected}"
    return ""
