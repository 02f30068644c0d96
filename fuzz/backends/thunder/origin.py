"""Where a Thunder wrong result starts: the first value of the program Thunder gets wrong.

One lowering fault shows in many programs, at different outputs and under different
shape decisions: a flip lowering that skips a flip when a flipped dim has size 1 showed,
in one night, once under a size-1 broadcast and once without, two buckets and two case
files for one bug. What such findings share is the first value of the program that
Thunder computes otherwise than eager. The EXIR lane reads it off the edge program's
nodes (fuzz/backends/exir/origin.py); a Thunder trace maps to the program's lines less
directly, so `first_departure` re-runs the program with every value its body assigns
returned as it was when assigned (`probe`), eagerly and through Thunder (the lane's
cache, the calls up to the diverging one in order: a cache hit may be part of the
fault), and compares them in the order the program assigns them
(fuzz.oracles.results.value_mismatch: the per-dtype tolerances). The first that differs
names the origin: its line's catalogue op (the case's META["lines"]; the called
function's name otherwise) and the nature of the difference, `dtype`, `shape` or
`values` (fuzz/facts.py "origin"; fuzz/campaign/causes.py merges findings of one origin).

A value that differs by rounding alone is not the origin: the float64 referee the result
oracle judges outputs by (fuzz.oracles.results.referee: ill-conditioned, or within
eager's error) judges each assigned value too, against the probe run in float64.
Thunder multiplies a bfloat16 product in float32 and rounds once, so it departs from
eager's product at every such line; without the referee that line would be the origin
of any wrong result after it, and merge findings of unrelated faults.

None (no origin) when the probe cannot say: either run raises, or every assigned value
agrees (the fault is in what the program returns or writes in place, not in a value it
names).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.backends.eager import float64_call
from fuzz.case import Case
from fuzz.observe import CallRecord
from fuzz.oracles.results import referee, value_mismatch
from fuzz.tensors import copy_args


def probe(case: Case) -> tuple[Callable[..., Any], list[tuple[str, int]]] | None:
    """`case.program` returning every name its body assigns at the top level, in order,
    each as it was when assigned (a tensor is cloned right there, so a later in-place
    write does not show at it); and those (name, line) pairs. None when the source has
    no such function."""
    tree = ast.parse(case.source)
    fn = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "program"), None
    )
    if fn is None or not isinstance(fn.body[-1], ast.Return):
        return None
    named: list[tuple[str, int]] = []
    body: list[ast.stmt] = []
    for stmt in fn.body[:-1]:
        body.append(stmt)
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        if target is None or len(stmt.targets) != 1:
            continue
        elts = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(e, ast.Name) for e in elts):
            continue
        for e in elts:
            snap = f"_origin_{len(named)}"
            text = f"{snap} = {e.id}.clone() if isinstance({e.id}, torch.Tensor) else {e.id}"
            body.append(ast.copy_location(ast.parse(text).body[0], stmt))
            named.append((e.id, stmt.lineno))
    if not named:
        return None
    values = [ast.Name(f"_origin_{k}", ast.Load()) for k in range(len(named))]
    body.append(ast.copy_location(ast.Return(ast.Tuple(values, ast.Load())), fn.body[-1]))
    fn.body = body
    ast.fix_missing_locations(tree)
    namespace = dict(vars(case.module)) if case.module is not None else {}
    namespace.setdefault("torch", torch)
    exec(compile(tree, case.where, "exec"), namespace)  # noqa: S102 - the case's own source
    return namespace["program"], named


def line_op(case: Case, line: int) -> str:
    """The catalogue op of a program line (META["lines"]), else the function it calls."""
    meta = getattr(case.module, "META", None) if case.module is not None else None
    lines = case.source.splitlines()
    by_line = meta.get("lines") if isinstance(meta, dict) else None
    if by_line:
        # META counts lines in the generated source; a case file's docstring is longer,
        # so the program's first line (the first op's) places them.
        start = next((i for i, t in enumerate(lines, 1) if t.startswith("def program(")), 0)
        if (op := by_line.get(line - (start + 1 - min(by_line)))) is not None:
            return op
    text = lines[line - 1] if line <= len(lines) else ""
    called = re.search(r"(torch(?:\.\w+)+)\(|\.(\w+)\(", text)
    return (called.group(1) or called.group(2)) if called else f"line {line}"


def first_departure(
    case: Case, calls: Sequence[tuple], index: int, jit: Callable[[Callable], Callable]
) -> dict[str, str] | None:
    """{"op", "nature", "class"} of the first assigned value Thunder (`jit` of the probe)
    gets wrong on call `index`, or None (module docstring)."""
    try:
        if (made := probe(case)) is None:
            return None
        fn, named = made
        expected = fn(*copy_args(calls[index]))
        jf = jit(fn)
        for args in calls[: index + 1]:
            actual = jf(*copy_args(args))
        return _first_mismatch(case, named, expected, actual, float64_call(fn, calls[index]))
    except Exception:  # noqa: BLE001 - the probe raising means no origin, not an error
        return None


def _first_mismatch(
    case: Case,
    named,
    expected,
    actual,
    reference64: Callable[[], CallRecord | None] = lambda: None,
) -> dict[str, str] | None:
    """The first assigned value that departs by more than rounding (module docstring);
    `reference64` is the probe's call in float64, computed when first needed."""

    @functools.cache
    def reference(k: int) -> Any:
        """Leaf `k` of the float64 call, None when it raised or its leaves do not line up
        with eager's (another number of values: it took another branch)."""
        record = reference64()
        if record is None or len(record.outputs) != len(pytree.tree_leaves(expected)):
            return None
        return record.outputs[k]

    offset = 0  # where each assigned value's leaves start among the call's leaves
    for (_, line), e, a in zip(named, expected, actual):
        e_leaves, a_leaves = pytree.tree_leaves(e), pytree.tree_leaves(a)
        whys = [
            why
            for k, (x, y) in enumerate(zip(e_leaves, a_leaves))
            if (why := value_mismatch(x, y)) is not None
            and not referee(x, y, reference(offset + k))
        ]
        offset += len(e_leaves)
        if len(e_leaves) != len(a_leaves):
            whys.append("shape")
        why = next((w for w in whys if w is not None), None)
        if why is not None:
            nature = why.split(" ", 1)[0]
            nature = nature if nature in ("dtype", "shape") else "values"
            op = line_op(case, line)
            return {"op": op, "nature": nature, "class": op}
    return None


def with_origin(d: Any, origins: dict[int, dict[str, str] | None]) -> dict[str, Any]:
    """The facts of divergence `d` (at a call) with its call's origin added."""
    origin = origins[int(d.stage[5:-1])]
    return d.data["facts"] | {
        "origin": f"{origin['op']}:{origin['nature']}",
        "origin_class": origin["class"],
    }


def annotate_origins(
    case: Case,
    calls: Sequence[tuple],
    report: Any,
    jit: Callable[[Callable, str], Callable],
    cache: str,
) -> None:
    """Give the lane report's wrong results the first value Thunder (`jit` with the lane's
    `cache`) gets wrong on their call, as the facts "origin" and "origin_class"
    (report.details["origin_by_call"], as EXIR's). An unsound hit at a call the default
    cache gets wrong (its control "diverges too": the fresh trace is the wrong one) gets
    the origin of the default cache's run of that call (details["fresh_origin_by_call"]):
    the value the lowering got wrong (fuzz/campaign/causes.py rule (f))."""
    origins = report.details.setdefault("origin_by_call", {})
    fresh = report.details.setdefault("fresh_origin_by_call", {})
    out = []
    for d in report.divergences:
        i = int(d.stage[5:-1]) if d.stage.startswith("call[") else -1
        if d.kind == f"{report.lane}.wrong-result":
            by_call, run_as = origins, cache
        elif d.kind == f"{report.lane}.unsound-hit" and d.data.get("control") == "diverges too":
            by_call, run_as = fresh, "constant values"
        else:
            i = -1
        if i >= 0 and i not in by_call:
            by_call[i] = first_departure(case, calls, i, lambda f, c=run_as: jit(f, c))
        if i >= 0 and by_call[i] and "facts" in d.data:
            d = dataclasses.replace(d, data=d.data | {"facts": with_origin(d, by_call)})
        out.append(d)
    report.divergences = out
