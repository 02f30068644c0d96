"""exir.aliasing: EXIR's alias classes against the dataflow and eager storage sharing.

ExecuTorch expresses aliasing only through the memory plan: two tensors alias when they
hold the same TensorSpec object, or one's storage is the other's (a `memory.view`'s
`_ViewSpec` reads its base's placement; `storage_base` chains for in-place/shared
allocations). An *alias class* below is the set of nodes whose specs have the same
storage root (`fuzz.backends.exir.graph.storage_root`).

What functionalization implies, and so what this oracle accepts or reports:

Inside the program (structure of the final plan, every graph level)
  legal sharing, and REQUIRED (a missing share is a bug, the producer would write a
  buffer that its consumer never reads):
    S1 getitem holds its producer's spec element (`spec is producer_spec[i]`);
    S2 the output node holds its arguments' specs;
    S3 a return annotated `Tensor(a!)` holds the spec of the argument with the same
       alias set: out-variants and their `memory.alloc`, in-place ops (`copy_` write-back
       of a mutated input or buffer) and the input they mutate;
    S4 a `memory.view` lives in its base's storage.
  S3 for in-place ops depends on the planner. ExecuTorch 1.5.1's planner re-points an
  in-place result's spec at the input it mutates (`_alias_inplace_result_specs`) and
  the emitter gives both one value, so the share is required as above. Planners without
  that step (executorch 1.0.x) give the in-place result a spec of its own; the runtime
  never uses its bytes, because the kernel wrapper of an op without out= arguments
  rebinds the result's value to the tensor the kernel returns (`*stack[n] =
  EValue(result_)`, which for `Tensor(a!)` is the mutated input itself). There the share
  happens at run time: counted in the notes ("inplace-result-rebound"), not a divergence;
  out-variants (S3 through `memory.alloc`) are required to share on every version.
  any other two nodes in one alias class is a bug (S5): the planner would hand one
  buffer to two values that the functional graph keeps apart.

At the program boundary (per call, against eager's CallRecord)
    E1 LEGAL: eager returns an input or a view of it (or two outputs share storage) and
       the program returns its own buffer. Functionalization turns views into *_copy
       ops; an exported program has value semantics for its outputs, and the values are
       checked by exir.runtime-result. Counted in the report details, not a divergence.
    E2 BUG: a user output is in the alias class of a user input while eager's output
       does not share storage with that input (the caller would get its own input
       buffer back for a freshly computed value, or the output would be clobbered by
       the next call's input). Not for an output that eager returns empty: a tensor
       with no elements holds no bytes, so it can neither clobber nor be clobbered
       (eager's alias facts give empty storage no identity either: fuzz/tensors.py
       `storage_key`). The plan may well put it in an input's class: RemoveNoopPass
       turns `x[:n]` of an empty `x` into `x` itself.
    E3 BUG: two user outputs in one alias class while eager's outputs are distinct
       storages (one write would change the other; the values may even differ). Not
       when eager returns either of them empty, as for E2.
    E4 BUG: eager changed an input's values but the exported signature has no
       USER_INPUT_MUTATION for it (the mutation is lost, and the runtime cannot return
       it). A mutation in the signature whose values eager left unchanged (e.g.
       `x.mul_(1)`) is legal.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import executorch.exir.memory_planning as memory_planning
import torch
import torch.utils._pytree as pytree
from torch.export.graph_signature import InputKind, OutputKind

from fuzz.backends.exir.graph import (
    graph_levels,
    is_alloc,
    is_memory_view,
    op_schema,
    storage_root,
    tensor_specs,
)
from fuzz.backends.exir.oracles.plan import MAX_PER_KIND
from fuzz.divergence import Divergence
from fuzz.observe import CallRecord
from fuzz.oracles.results import value_mismatch


class _UnionFind:
    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def _written_args(node: torch.fx.Node) -> list[tuple[int | None, torch.fx.Node]]:
    """(return index, argument node) for each `Tensor(a!)` return and the argument with
    the same alias set (out= kwargs, in-place self)."""
    schema = op_schema(node.target)
    if schema is None:
        return []
    out = []
    bound = {a.name: v for a, v in zip(schema.arguments, node.args)} | dict(node.kwargs)
    multi = len(schema.returns) > 1
    for ri, ret in enumerate(schema.returns):
        if ret.alias_info is None or not ret.alias_info.is_write:
            continue
        for arg in schema.arguments:
            if (
                arg.alias_info is not None
                and arg.alias_info.before_set == ret.alias_info.before_set
            ):
                value = bound.get(arg.name)
                if isinstance(value, torch.fx.Node):
                    out.append((ri if multi else None, value))
    return out


def _spec_at(node: torch.fx.Node, index: int | None) -> Any:
    specs = dict(tensor_specs(node))
    return (
        specs.get(index) if index is not None else specs.get(None, next(iter(specs.values()), None))
    )


def planner_aliases_inplace_results() -> bool:
    """Whether the installed ExecuTorch memory planner puts an in-place op's result in the
    storage of the input it mutates (1.5.1: `_alias_inplace_result_specs`), rather than
    leaving the runtime to rebind it (1.0.x). Feature-detected, not version-compared."""
    return hasattr(memory_planning, "_alias_inplace_result_specs")


def check_alias_structure(
    gm: torch.fx.GraphModule, device: str = "cpu"
) -> tuple[list[Divergence], dict[str, int]]:
    """S1-S5 on the final plan, every graph level. Also returns notes: counts of
    harmless findings ("stale-output-spec": see S2 below; "inplace-result-rebound", only
    where the planner leaves in-place results to the runtime: see S3 above)."""
    problems: list[str] = []
    notes = {"stale-output-spec": 0}
    planned_inplace = planner_aliases_inplace_results()
    inplace_written: set[str] = set()
    for path, level in graph_levels(gm):
        where = "/".join(path) or "<top>"
        uf = _UnionFind()

        def require(
            a: torch.fx.Node,
            a_spec: Any,
            b: torch.fx.Node,
            b_spec: Any,
            rule: str,
            same_object: bool,
            connect: bool = True,
        ):
            if connect:  # the output node is not a value: it must not join its arguments' classes
                uf.union(a.name, b.name)
            if a_spec is None or b_spec is None:
                return
            ok = a_spec is b_spec if same_object else storage_root(a_spec) is storage_root(b_spec)
            if not ok:
                problems.append(f"{rule}: {where}/{a.name} does not share {b.name}'s storage")

        for node in level.graph.nodes:
            if node.op == "output":
                # S2. Exception: memory planning re-points an in-place node's spec at the
                # input it mutates (_alias_inplace_result_specs) but leaves the output
                # node holding the old spec object, which then gets planned as an extra,
                # never-written tensor. The emitter returns the argument's value, so
                # this only wastes arena bytes: noted, not a divergence.
                specs = node.meta.get("spec")
                flat_args = pytree.tree_leaves(node.args[0])
                flat_specs = pytree.tree_leaves(specs) if specs is not None else []
                for arg, spec in zip(flat_args, flat_specs):
                    if isinstance(arg, torch.fx.Node) and len(tensor_specs(arg)) == 1:
                        arg_spec = _spec_at(arg, None)
                        if arg.name in inplace_written and spec is not arg_spec:
                            notes["stale-output-spec"] += 1
                            continue
                        require(node, spec, arg, arg_spec, "S2 output", True, connect=False)
            elif node.op != "call_function":
                continue
            elif node.target is operator.getitem and isinstance(node.args[0], torch.fx.Node):
                require(
                    node,
                    _spec_at(node, None),
                    node.args[0],
                    _spec_at(node.args[0], node.args[1]),
                    "S1 getitem",
                    True,
                )
            elif is_memory_view(node.target) and isinstance(node.args[0], torch.fx.Node):
                require(
                    node,
                    _spec_at(node, None),
                    node.args[0],
                    _spec_at(node.args[0], None),
                    "S4 memory.view",
                    False,
                )
            else:
                for ri, arg in _written_args(node):
                    rule = "S3 out-variant" if is_alloc(arg.target) else "S3 in-place"
                    if rule == "S3 in-place":
                        inplace_written.add(node.name)
                        if not planned_inplace and _spec_at(node, ri) is not _spec_at(arg, None):
                            uf.union(node.name, arg.name)  # one value at run time
                            notes["inplace-result-rebound"] = (
                                notes.get("inplace-result-rebound", 0) + 1
                            )
                            continue
                    require(node, _spec_at(node, ri), arg, _spec_at(arg, None), rule, True)
        classes: dict[int, list[str]] = {}
        for node in level.graph.nodes:
            if node.op in ("output", "get_attr"):
                continue
            for _, spec in tensor_specs(node):
                if spec.const:
                    continue
                members = classes.setdefault(id(storage_root(spec)), [])
                if node.name not in members:
                    members.append(node.name)
        for members in classes.values():
            comps = {uf.find(m) for m in members}
            if len(comps) > 1:
                problems.append(
                    f"S5 unexplained sharing at {where}: {members} hold one storage "
                    f"but are not connected by getitem/output/out=/in-place/view"
                )
    return [
        Divergence(
            "exir.aliasing",
            "alias-structure",
            p,
            device,
            {"rule": p.split(":", 1)[0], "problems": len(problems)},
        )
        for p in problems[:MAX_PER_KIND]
    ], notes


def _eager_classes(record: CallRecord) -> _UnionFind:
    """Eager storage sharing as classes over ("in", j) / ("out", i)."""
    uf = _UnionFind()
    for a, b in record.aliases:
        uf.union(repr(a), repr(b))
    for i, j in record.identity:
        uf.union(repr(("out", i)), repr(("in", j)))
    return uf


def boundary_facts(et_program: torch.export.ExportedProgram) -> dict[str, Any]:
    """Which user inputs/outputs of the final program share an alias class, and which
    inputs the signature mutates. Positions are flattened user-input / user-output leaves."""
    gm = et_program.graph_module
    sig = et_program.graph_signature
    nodes = {n.name: n for n in gm.graph.nodes}
    user_inputs = [s.arg.name for s in sig.input_specs if s.kind == InputKind.USER_INPUT]
    in_roots = {}
    for j, name in enumerate(user_inputs):
        node = nodes.get(name)
        spec = _spec_at(node, None) if node is not None else None
        if spec is not None:
            in_roots[j] = id(storage_root(spec))
    output = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    out_specs = (
        pytree.tree_leaves(output.meta.get("spec")) if output.meta.get("spec") is not None else []
    )
    out_roots, k = {}, 0
    mutated = set()
    for pos, ospec in enumerate(sig.output_specs):
        spec = out_specs[pos] if pos < len(out_specs) else None
        if ospec.kind == OutputKind.USER_OUTPUT:
            if spec is not None and hasattr(spec, "mem_id"):
                out_roots[k] = id(storage_root(spec))
            k += 1
        elif ospec.kind == OutputKind.USER_INPUT_MUTATION:
            if ospec.target in user_inputs:
                mutated.add(user_inputs.index(ospec.target))
    return {
        "in_roots": in_roots,
        "out_roots": out_roots,
        "mutated": mutated,
        "n_inputs": len(user_inputs),
    }


def _holds_no_bytes(record: CallRecord, k: int) -> bool:
    """Whether eager's output k is a tensor with no elements: it shares no bytes with
    anything, so E2/E3 have nothing to judge."""
    value = record.outputs[k] if k < len(record.outputs) else None
    return isinstance(value, torch.Tensor) and value.numel() == 0


def check_alias_boundary(
    facts: dict[str, Any],
    expected: CallRecord,
    args_before: Sequence[Any],
    stage: str,
    device: str = "cpu",
) -> tuple[list[Divergence], dict[str, int]]:
    """E1-E4 for one call. `args_before` are the call's arguments before eager ran."""
    out, legal = [], {"E1-copy-of-eager-alias": 0}
    if expected.error:
        return out, legal
    eager = _eager_classes(expected)

    def eager_shares(a: tuple[str, int], b: tuple[str, int]) -> bool:
        return eager.find(repr(a)) == eager.find(repr(b))

    for k, root in facts["out_roots"].items():
        if _holds_no_bytes(expected, k):
            continue
        for j, in_root in facts["in_roots"].items():
            if root == in_root and not eager_shares(("out", k), ("in", j)):
                out.append(
                    Divergence(
                        "exir.aliasing",
                        stage,
                        f"E2: output {k} is planned in input {j}'s storage but eager's output {k} "
                        f"does not alias input {j}",
                        device,
                        {"rule": "E2", "output": k, "input": j},
                    )
                )
    for (k1, r1), (k2, r2) in _pairs(sorted(facts["out_roots"].items())):
        if r1 != r2 or _holds_no_bytes(expected, k1) or _holds_no_bytes(expected, k2):
            continue
        if not eager_shares(("out", k1), ("out", k2)):
            out.append(
                Divergence(
                    "exir.aliasing",
                    stage,
                    f"E3: outputs {k1} and {k2} share one planned storage but eager's do not",
                    device,
                    {"rule": "E3", "outputs": [k1, k2]},
                )
            )
    flat_before = pytree.tree_leaves(list(args_before))
    for j, (before, after) in enumerate(zip(flat_before, expected.inputs_after)):
        if not isinstance(before, torch.Tensor) or j in facts["mutated"]:
            continue
        if value_mismatch(before.detach().cpu(), after) is not None:
            out.append(
                Divergence(
                    "exir.aliasing",
                    stage,
                    f"E4: eager mutates input {j} but the exported program has no mutation for it",
                    device,
                    {"rule": "E4", "input": j},
                )
            )
    for k in range(len(expected.outputs)):
        if k not in facts["out_roots"]:
            continue
        shares_input = any(eager_shares(("out", k), ("in", j)) for j in range(facts["n_inputs"]))
        if shares_input and all(facts["out_roots"][k] != r for r in facts["in_roots"].values()):
            legal["E1-copy-of-eager-alias"] += 1
    return out[:MAX_PER_KIND], legal


def _pairs(items):
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            yield items[i], items[j]
