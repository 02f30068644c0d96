"""Reducing a diverging program to a 1-minimal one, after Hypothesis's shrink.

Hypothesis shrinks genes: deleting an op gene re-decodes every later gene against other
available values, so its shrink can stop with ops the divergence does not need (a chain of
`neg`s in front of the op that matters). This pass works on the program itself:

* remove op k: each use of its outputs is replaced by a value defined before it with the
  same shape and dtype (its own operand first); the op's shape decisions go with it;
* remove input j, once nothing uses it (the calls lose that argument; an input that was
  the same tensor as, or a view of, input j becomes a plain tensor);

and a removal is kept when the reduced case still shows the divergence (`still_diverges`
decides, e.g. by running the lane and comparing `fuzz.buckets.bucket_of(d)` without the
generator's facts, so that the decisions removed with an op do not count). It repeats
until no single op or input can be removed and keep the divergence: the result is
1-minimal by construction, which is how it is checked (`reduce_program` returns only when
a full round over every op and every input kept nothing). Removals that would leave no
op or no input are not tried.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from fuzz.calls import CallPlan
from fuzz.ops.spec import TensorType
from fuzz.program import Node, Program


def _same_kind(a, b) -> bool:
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return a.shape == b.shape and a.dtype == b.dtype
    return type(a) is type(b) and a == b


def without_op(program: Program, k: int) -> Program | None:
    """The program without node k, or None when an output of it has no stand-in."""
    if len(program.nodes) <= 1:
        return None
    node = program.nodes[k]
    first_out = min(node.outputs)
    subst: dict[int, int] = {}
    for v in node.outputs:
        candidates = list(node.args) + [u for u in range(first_out) if u not in node.args]
        stand_in = next(
            (u for u in candidates if _same_kind(program.types[u], program.types[v])), None
        )
        if stand_in is None:
            if any(v in n.args for n in program.nodes[k + 1 :]) or v in program.outputs:
                return None
            continue
        subst[v] = stand_in
    nodes = [
        dataclasses.replace(n, args=tuple(subst.get(a, a) for a in n.args))
        for i, n in enumerate(program.nodes)
        if i != k
    ]
    outputs = tuple(
        dict.fromkeys(
            subst.get(v, v) for v in program.outputs if v in subst or v not in node.outputs
        )
    )
    if not outputs:
        return None
    return _with(program, nodes, outputs)


def _with(program: Program, nodes: Sequence[Node], outputs: tuple[int, ...]) -> Program:
    return dataclasses.replace(
        program,
        nodes=tuple(nodes),
        outputs=outputs,
        decisions=tuple(d for n in nodes for d in n.decisions),
    )


def without_input(
    program: Program, plans: Sequence[CallPlan], j: int
) -> tuple[Program, list[CallPlan]] | None:
    """The program and calls without input j (which nothing may use), or None."""
    if program.n_inputs <= 1 or j in program.used_inputs() or j in program.outputs:
        return None

    def renumber(v: int) -> int:
        return v - 1 if v > j else v

    nodes = [
        dataclasses.replace(
            n, args=tuple(map(renumber, n.args)), outputs=tuple(map(renumber, n.outputs))
        )
        for n in program.nodes
    ]
    types = tuple(t for i, t in enumerate(program.types) if i != j)
    new = dataclasses.replace(
        program,
        input_types=tuple(t for i, t in enumerate(program.input_types) if i != j),
        nodes=tuple(nodes),
        types=types,
        outputs=tuple(map(renumber, program.outputs)),
    )
    return new, [_drop_layout(plan, j) for plan in plans]


def _drop_layout(plan: CallPlan, j: int) -> CallPlan:
    layouts = []
    for i, layout in enumerate(plan.layouts):
        if i == j:
            continue
        kind, _, ref = layout.partition(":")
        if ref and int(ref) == j:
            layout = "contiguous"  # it was the same tensor as, or a view of, input j
        elif ref and int(ref) > j:
            layout = f"{kind}:{int(ref) - 1}"
        layouts.append(layout)
    return dataclasses.replace(plan, layouts=tuple(layouts))


def reduce_program(
    program: Program,
    plans: list[CallPlan],
    still_diverges: Callable[[Program, list[CallPlan]], bool],
    give_up: Callable[[], bool] = lambda: False,
) -> tuple[Program, list[CallPlan], bool]:
    """Remove ops and inputs one at a time while the divergence stays; returns the reduced
    program and calls, and whether it is 1-minimal (False when `give_up` stopped it)."""
    while True:
        if give_up():
            return program, plans, False
        for k in reversed(range(len(program.nodes))):
            candidate = without_op(program, k)
            if candidate is not None and still_diverges(candidate, plans):
                program = candidate
                break
        else:
            for j in reversed(range(program.n_inputs)):
                reduced = without_input(program, plans, j)
                if reduced is not None and still_diverges(*reduced):
                    program, plans = reduced
                    break
            else:
                return program, plans, True
