"""Loading and running .pte programs with the pip ExecuTorch runtime.

`missing_kernels` says which operators of a program the runtime has no kernel for: such
programs are checked statically only. The harness's own `fuzz::` custom ops get runtime
kernels of ours (fuzz/backends/exir/kernels/, loaded before the registry is first read,
`$FUZZ_RUNTIME_KERNELS=off` to leave them out); where they cannot be built, those
programs stay static, with the reason.
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

Why a call that fails carries the runtime's log: the binding's exception says only
"method->execute() failed with error 0x12" for every kernel's failed check, so an
embedding given a negative index and an index_select given an empty one read alike, and
a registered bug's pattern could tell them apart only by the ops of the program. The
runtime says which check failed in its log ("[op_embedding.cpp:52] Check failed
(indices_ptr[i] >= 0): indices_ptr[0] -2 < 0"), which the pip runtime writes through
Python's `sys.stderr` (or, where that is the process's own, fd 2). So
`LoadedProgram.execute` sends both to a buffer while the method runs and, when it
raises, adds the log's last lines to the message (crash buckets and patterns read them,
fuzz/buckets.py). Output of other threads in that window is caught too and dropped.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.utils._pytree as pytree
from executorch.runtime import Runtime
from torch.export.graph_signature import InputKind, OutputKind

import fuzz.backends.exir.kernels as kernels
from fuzz.backends.exir.graph import graph_levels, op_schema
from fuzz.backends.exir.inputs import canonical_copy
from fuzz.errors import error_text
from fuzz.observe import CallRecord, cpu_copy
from fuzz.procs import RUNTIME_LOG_ENV, log_tail

_REGISTERED: frozenset[str] | None = None


KERNELS_ENV = "FUZZ_RUNTIME_KERNELS"


def fuzz_kernels() -> dict[str, Any]:
    """Our `fuzz::` kernels in the runtime (fuzz/backends/exir/kernels): {"loaded": path,
    "ops": [...]}, or {"error": why} (off, or not buildable here)."""
    if os.environ.get(KERNELS_ENV, "on").strip().lower() == "off":
        return {"error": f"${KERNELS_ENV}=off"}
    return kernels.load()


def runtime_operator_names() -> frozenset[str]:
    global _REGISTERED
    if _REGISTERED is None:
        fuzz_kernels()  # before the registry is read: it adds the fuzz:: kernels
        _REGISTERED = frozenset(Runtime.get().operator_registry.operator_names)
    return _REGISTERED


def runtime_ops(gm: torch.fx.GraphModule) -> list[str]:
    """The operators of the final program as the runtime names them ("aten::add.out")."""
    ops = set()
    for _, level in graph_levels(gm):
        for node in level.graph.nodes:
            schema = op_schema(node.target) if node.op == "call_function" else None
            if schema is not None:
                overload = schema.overload_name
                ops.add(f"{schema.name}.{overload}" if overload else schema.name)
    return sorted(ops)


def missing_kernels(gm: torch.fx.GraphModule, ops: list[str] | None = None) -> list[str]:
    """Operators of the final program (`ops`, when already listed) the pip runtime has no
    kernel for."""
    known = runtime_operator_names()
    listed = runtime_ops(gm) if ops is None else ops
    return [op for op in listed if op not in known and not op.startswith("aten::sym_")]


def runtime_plan(gm: torch.fx.GraphModule, enabled: bool = True) -> tuple[str, list[str]]:
    """How the lane runs the final program: (the `runtime` detail, the counters to add).
    "runtime-static-only" when the runtime is disabled or lacks a kernel (with our fuzz::
    kernels' reason, and "runtime-static-no-fuzz-kernels", when they are what is missing);
    "runtime-fuzz-kernels" when it runs with ours."""
    if not enabled:
        return "static checks only: no kernel for ['(runtime disabled)']", ["runtime-static-only"]
    ops = runtime_ops(gm)
    missing = missing_kernels(gm, ops)
    ours = fuzz_kernels()
    if missing:
        why, counters = f"static checks only: no kernel for {missing}", ["runtime-static-only"]
        if "error" in ours and any(op.startswith("fuzz::") for op in missing):
            why += f" (our fuzz:: kernels: {ours['error']})"
            counters.append("runtime-static-no-fuzz-kernels")
        return why, counters
    if any(op.startswith("fuzz::") for op in ops):
        name = Path(ours["loaded"]).name
        return f"pip runtime, with our fuzz:: kernels ({name})", ["runtime-fuzz-kernels"]
    return "pip runtime", []


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

    def accepts(self, args: tuple) -> bool:
        """Whether the method runs `args` (a contract probe) without raising."""
        try:
            self.execute(self.inputs(args))
        except Exception:
            return False
        return True

    def execute(self, flat_inputs: list[Any]) -> list[Any]:
        """The method's outputs; when it raises, the exception's message ends with the
        runtime's last log lines, "(runtime log: ...)" (module docstring: why)."""
        sys.stderr.flush()
        # A parent that may see this process die names a file to keep the log in
        # (fuzz.procs.RUNTIME_LOG_ENV): an abort's message is only there, so both the
        # process's fd 2 and Python's sys.stderr append to it as they write.
        named = os.environ.get(RUNTIME_LOG_ENV)
        if named:
            open(named, "wb").close()
        with contextlib.ExitStack() as stack:
            log = stack.enter_context(open(named, "a+b") if named else tempfile.TemporaryFile())
            python_log = (
                stack.enter_context(open(named, "a", buffering=1, errors="replace"))
                if named
                else io.StringIO()
            )
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)
            try:
                with contextlib.redirect_stderr(python_log):
                    return list(self.method.execute(flat_inputs))
            except Exception as e:
                failed = e
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            python_log.flush()
            log.seek(0)
            logged = log.read().decode(errors="replace")
            if not named:
                logged += python_log.getvalue()
        kept = log_tail(logged)
        if kept is None:
            raise failed
        message = f"{failed} (runtime log: {kept})"
        try:
            described = type(failed)(message)
        except Exception:
            described = RuntimeError(message)
        raise described from failed


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
    return functional_call_record(et_program.graph_signature, results, flat)


def functional_call_record(sig: Any, results: Sequence[Any], flat: Sequence[Any]) -> CallRecord:
    """The CallRecord of a functional program's call: `results` are its graph outputs in
    signature order (user-input mutations, buffer mutations, user outputs); its user
    outputs are the record's outputs, and `inputs_after` is the call's flat inputs with
    the mutations returned for them put in (as eager's record has them, numbers too)."""
    user_names = [s.arg.name for s in sig.input_specs if s.kind == InputKind.USER_INPUT]
    outputs, after = [], [cpu_copy(x) for x in flat]
    for ospec, value in zip(sig.output_specs, results):
        if ospec.kind == OutputKind.USER_OUTPUT:
            outputs.append(cpu_copy(value))
        elif ospec.kind == OutputKind.USER_INPUT_MUTATION and ospec.target in user_names:
            after[user_names.index(ospec.target)] = cpu_copy(value)
    return CallRecord(outputs, None, after)
