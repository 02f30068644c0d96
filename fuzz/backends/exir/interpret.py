"""Running an exported program node by node with real tensors, recording every value.

The plan oracles compare each planned buffer with the tensor its reference node holds
on a real call (fuzz/backends/exir/mapping.py). `interpret(ep, args)` runs
`ep.graph_module` (lifted parameters, buffers and constants fed from the
ExportedProgram) under a `torch.fx.Interpreter` and records every node's value, keyed
by (graph path, node name). It runs the exported ATen program (the eager reference,
node by node) and, for the tensors that program has no node for, the edge program
(`EdgeProgramManager.exported_program()`: the edge operators run their real kernels).
`torch.cond` is run branch by branch with a nested recorder, so the taken branch's
nodes are recorded under that branch's path (the attribute name of its submodule).

The lane feeds it the inputs the runtime gets (independent contiguous copies): the
exported program is only valid for inputs like its example (a `.contiguous().view(-1)`
that export recorded as a view of a contiguous example fails on a transposed input).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.utils._pytree as pytree
from torch.export.graph_signature import InputKind

from fuzz.backends.exir.graph import GraphPath


def program_inputs(ep: torch.export.ExportedProgram, args: tuple) -> list[Any]:
    """Flat inputs of `ep.graph_module`: lifted parameters/buffers/constants, then user args
    (numbers included: export keeps a placeholder for a number it specialized)."""
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


def _snapshot(value: Any) -> Any:
    return pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, value)


class _Recorder(torch.fx.Interpreter):
    def __init__(
        self, gm: torch.fx.GraphModule, path: GraphPath, store: dict, snapshot: bool = False
    ):
        super().__init__(gm, garbage_collect_values=False)
        self.path, self.store, self.snapshot = path, store, snapshot
        self.names = {id(m): name for name, m in gm.named_children()}

    def run_node(self, n: torch.fx.Node) -> Any:
        value = super().run_node(n)
        if n.op != "output":
            self.store[(self.path, n.name)] = _snapshot(value) if self.snapshot else value
        return value

    def call_function(self, target, args, kwargs):
        if target is torch.ops.higher_order.cond:
            pred, true_fn, false_fn, operands = args
            branch = true_fn if bool(pred) else false_fn
            name = self.names.get(id(branch))
            if isinstance(branch, torch.fx.GraphModule) and name is not None:
                nested = _Recorder(branch, self.path + (name,), self.store, self.snapshot)
                return tuple(nested.run(*operands))
        return super().call_function(target, args, kwargs)


def interpret(
    ep: torch.export.ExportedProgram,
    args: tuple,
    snapshot: bool = False,
    into: dict[tuple[GraphPath, str], Any] | None = None,
) -> dict[tuple[GraphPath, str], Any]:
    """Every node value of `ep.graph_module` on `args` (CPU tensors), keyed by (path, name).
    With `snapshot`, each value as it was when its node ran (a copy): a view recorded
    before a later node writes its base (the `copy_` that writes back a mutated input)
    would otherwise hold the written values, which its edge counterpart, a `*_copy`
    node, does not. `into`: the dict to record into, which keeps the values of the nodes
    that ran when a later node raises."""
    store: dict[tuple[GraphPath, str], Any] = {} if into is None else into
    with torch.no_grad():
        _Recorder(ep.graph_module, (), store, snapshot).run(*program_inputs(ep, args))
    return store
