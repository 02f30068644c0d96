"""Loading and running .pte programs with the pip ExecuTorch runtime.

`missing_kernels` says which operators of a program the runtime has no kernel for (the
harness's `fuzz::` custom ops): such programs are checked statically only.
`LoadedProgram` keeps a Program and its forward Method together (a Method whose Program
was collected crashes the process). `run_on_runtime` runs one call and returns a
`CallRecord` comparable with eager's (fuzz.oracles.results.compare_results).

Inputs: the runtime takes contiguous CPU tensors, each its own buffer (the lane feeds
the same independent contiguous copies it exported the program for and runs its eager
reference on). A Python number the program takes was specialized by export: it is
still an input of the method on the runtimes checked (executorch 1.5.1 and 1.0.1 take
it and reject another value, "should have the same value as the input_evalue"), so the
method is fed the inputs its metadata declares: every flat input leaf, or only the
tensors where the method declares that many inputs. executorch 1.0.1's binding cannot
take a Python float at all ("Unsupported python type"): `run_on_runtime` returns None
for such a call, a limitation of the binding, not a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree
from executorch.runtime import Runtime
from torch.export.graph_signature import InputKind, OutputKind

from fuzz.backends.exir.graph import graph_levels, op_schema
from fuzz.backends.exir.inputs import canonical_copy
from fuzz.errors import error_text
from fuzz.observe import CallRecord, cpu_copy

_REGISTERED: frozenset[str] | None = None


def runtime_operator_names() -> frozenset[str]:
    global _REGISTERED
    if _REGISTERED is None:
        _REGISTERED = frozenset(Runtime.get().operator_registry.operator_names)
    return _REGISTERED


def missing_kernels(gm: torch.fx.GraphModule) -> list[str]:
    """Operators of the final program the pip runtime has no kernel for (e.g. `fuzz::`)."""
    known = runtime_operator_names()
    missing = set()
    for _, level in graph_levels(gm):
        for node in level.graph.nodes:
            schema = op_schema(node.target) if node.op == "call_function" else None
            if schema is None:
                continue
            name = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
            if name not in known and not name.startswith("aten::sym_"):
                missing.add(name)
    return sorted(missing)


class LoadedProgram:
    """A loaded .pte and its forward Method; the Program stays referenced as long as the
    Method is (a Method whose Program was collected crashes the process)."""

    def __init__(self, buffer: bytes):
        self.program = Runtime.get().load_program(buffer)
        self.method = self.program.load_method("forward")
        self.num_inputs = self.method.metadata.num_inputs()

    def close(self) -> None:
        self.method = None
        self.program = None

    def inputs(self, args: Sequence[Any]) -> list[Any]:
        """The flat inputs the method takes for a call's arguments: contiguous CPU copies
        of every leaf, or of the tensors only where the method takes only those."""
        return self.select(flat_copies(args))

    def select(self, flat: list[Any]) -> list[Any]:
        tensors = [x for x in flat if isinstance(x, torch.Tensor)]
        return tensors if self.num_inputs == len(tensors) != len(flat) else flat

    def execute(self, flat_inputs: list[Any]) -> list[Any]:
        return list(self.method.execute(flat_inputs))


def flat_copies(args: Sequence[Any]) -> list[Any]:
    """Every flat input leaf; tensors as independent contiguous CPU copies."""
    return [
        canonical_copy(x.detach().to("cpu")) if isinstance(x, torch.Tensor) else x
        for x in pytree.tree_leaves((tuple(args), {}))
    ]


def run_on_runtime(
    loaded: LoadedProgram, et_program: torch.export.ExportedProgram, args: Sequence[Any]
) -> CallRecord | None:
    """One call through the runtime, as a CallRecord comparable with eager's (None when
    the runtime binding cannot take the call's number inputs).

    The runtime returns the graph outputs in signature order: user-input mutations,
    buffer mutations, user outputs. Mutations come back as outputs (the caller's tensors
    are not written), so `inputs_after` is the inputs (every flat leaf, numbers
    included, as eager's record has them) with the returned mutations put in.
    """
    flat = flat_copies(args)
    fed = loaded.select(flat)
    try:
        results = loaded.execute(fed)
    except Exception as e:
        if "Unsupported python type" in str(e) and len(fed) > sum(
            isinstance(x, torch.Tensor) for x in fed
        ):
            return None
        return CallRecord([], error_text(e), [cpu_copy(x) for x in flat])
    sig = et_program.graph_signature
    user_names = [s.arg.name for s in sig.input_specs if s.kind == InputKind.USER_INPUT]
    outputs, after = [], [cpu_copy(x) for x in flat]
    for ospec, value in zip(sig.output_specs, results):
        if ospec.kind == OutputKind.USER_OUTPUT:
            outputs.append(cpu_copy(value))
        elif ospec.kind == OutputKind.USER_INPUT_MUTATION and ospec.target in user_names:
            after[user_names.index(ospec.target)] = cpu_copy(value)
    return CallRecord(outputs, None, after)
