"""The ExecuTorch pipeline the EXIR lane runs: export -> to_edge -> to_executorch.

The pipeline is the one ExecuTorch users run (`to_edge(export(...)).to_executorch(...)`)
with two hooks that do not change what it computes (and, for speed, torch.export's
registry bookkeeping without its redundant passes: fuzz/backends/exir/speedups.py):

  * the `sym_shape_eval_pass` slot holds `SpecProbe`, which records every TensorSpec
    as SpecPropPass (and the passes up to view-copy removal) left it, then runs the
    stock ConstraintBasedSymShapeEvalPass;
  * `memory_planning_pass` is a fresh MemoryPlanningPass per run (the config default
    is one shared instance), greedy for the main pipeline.

to_executorch changes the edge program in place, so it runs on a deep copy of one
pristine EdgeProgramManager (`ExirBuild.edge`), which the checks' own pipelines copy
again (fuzz/backends/exir/mirror.py: the passes of to_executorch re-run with an extra
SpecPropPass, and the naive plan).

Export refusals raise `ExportRefused`, programs the edge dialect or the out-variant pass
do not support `Unsupported` (both skips for the lane); any other failure of export or
to_edge raises `StageError`, and a failure of to_executorch is kept in
`ExirBuild.error` (the lane judges it: exir.bound-loss, a skip, or exir.crash).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import re
import time
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch
import torch.utils._pytree as pytree
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass
from torch._export.verifier import SpecViolationError
from torch.export import Dim
from torch.fx.passes.infra.pass_base import PassBase, PassResult

import fuzz.backends.exir.contract as contract
import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)
from fuzz import speedups
from fuzz.backends.exir.graph import SpecRecord, graph_levels, static_sizes
from fuzz.backends.exir.inputs import independent
from fuzz.backends.exir.mapping import snapshot_specs

# re-exported: the variance check's pipelines live in mirror.py, tests import them here
from fuzz.backends.exir.mirror import (  # noqa: F401
    NotApplicable,
    memory_planning_pass,
    mirror_to_executorch,
)
from fuzz.backends.exir.oracles import plan as exir_plan
from fuzz.backends.exir.speedups import install as install_speedups
from fuzz.errors import FuzzError, error_text

# The node an FX pass, an ExecuTorch pass or the emitter names as the failing one, in the
# graph its error message prints ("Here is the node in the graph module: ... --> %node").
_MARKED_NODE = re.compile(r"^--> (.+)$", re.M)


def stage_error_text(error: BaseException) -> str:
    """`error_text(error)`, with the node the message marks as failing ("--> %node ...")
    on a line of its own after the first, "At: %node ...": the printed graph runs past the
    text's limit in most programs, and which node failed is what tells one bug from
    another (a registered bug's pattern names it, fuzz/known.py)."""
    text = error_text(error)
    marked = _MARKED_NODE.search(str(error))
    if marked is None:
        return text
    first, _, rest = text.partition("\n")
    return f"{first}\nAt: {marked.group(1).strip()[:300]}\n{rest}".rstrip("\n")


class ExportRefused(FuzzError):
    """torch.export (or the edge dialect) declined the program: a skip, not a divergence."""


class Unsupported(FuzzError):
    """The ExecuTorch pipeline does not support the program (documented limitation)."""


class StageError(FuzzError):
    """A pipeline stage raised unexpectedly; `.stage` names it, `__cause__` is the error."""

    def __init__(self, stage: str, error: BaseException, program: Any = None):
        super().__init__(f"{stage}: {error_text(error, None)}")
        self.stage, self.error = stage, error
        self.program = program  # the last program built before it (facts: its ops)


# ---------------------------------------------------------------------------------------
# Export


def as_module(program: Callable[..., Any]) -> torch.nn.Module:
    """`program` itself when it is a Module; else a Module whose forward has the
    function's parameter names (so placeholders and dynamic_shapes use them)."""
    if isinstance(program, torch.nn.Module):
        return program
    params = list(inspect.signature(program).parameters.values())
    simple = all(
        p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty and p.name.isidentifier()
        for p in params
    ) and "self" not in [p.name for p in params]
    names = ", ".join(p.name for p in params) if simple else "*args"
    ns: dict[str, Any] = {"_fn": program}
    exec(f"def forward(self, {names}):\n    return _fn({names})\n", ns)
    module = type("ExportedCase", (torch.nn.Module,), {"forward": ns["forward"]})()
    module._star_args = not simple  # type: ignore[attr-defined]
    return module


def dynamic_shapes_for(
    module: torch.nn.Module, args: tuple, dims: dict[int, dict[int, tuple[int, int]]]
) -> Any:
    if not dims:
        return None
    per_arg = tuple(
        {d: Dim.AUTO(min=lo, max=hi) for d, (lo, hi) in dims[p].items()}
        if p in dims and isinstance(a, torch.Tensor)
        else None
        for p, a in enumerate(args)
    )
    return (per_arg,) if getattr(module, "_star_args", False) else per_arg


_REFUSAL_NAMES = {
    "UserError",
    "Unsupported",
    "GuardOnDataDependentSymNode",
    "ConstraintViolationError",
    "DataDependentOutputException",
    "DynamicOutputShapeException",
    "UnsupportedOperatorException",
    "NotImplementedError",
    "PendingUnbackedSymbolNotFound",
    "TorchRuntimeError",
}


def is_export_refusal(e: BaseException) -> bool:
    """A documented refusal to export, not a crash. A higher-order op (torch.cond, ...)
    whose body Dynamo could not capture raises UncapturedHigherOrderOpError while
    handling the body's own error: it refuses when that error is a refusal (e.g. `Unsupported`:
    "Higher order ops do not support aliasing" for a branch returning a view of its
    operand), and stays a crash otherwise."""
    if any(c.__name__ in _REFUSAL_NAMES for c in type(e).__mro__):
        return True
    inner = e.__cause__ or e.__context__  # Dynamo re-raises the body's error `from None`
    if type(e).__name__ == "UncapturedHigherOrderOpError" and inner is not None:
        return is_export_refusal(inner)
    return False


def export_program(
    program: Callable[..., Any], example: tuple, dims: dict[int, dict[int, tuple[int, int]]]
) -> torch.export.ExportedProgram:
    module = as_module(program)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(
            module,
            independent(example),
            dynamic_shapes=dynamic_shapes_for(module, example, dims),
            strict=False,
        )


# ---------------------------------------------------------------------------------------
# to_edge / to_executorch


_NON_CORE = re.compile(r"Operator (?:torch\._ops\.)?(\w+)\.(\w+)\.(\w+) is not in Core ATen")


# Non-core operators this process has allowed so far (with the speedups on): passed to
# every later to_edge, which then need not fail and re-run once per such operator.
_ALLOWED_NON_CORE: list[Any] = []


def lower_to_edge(
    ep: torch.export.ExportedProgram,
    max_retries: int = 6,
    convert: Callable[[torch.export.ExportedProgram, EdgeCompileConfig], Any] | None = None,
):
    """`to_edge(ep)`; an operator outside the Core ATen opset (masked_select, ...) is
    added to `_core_aten_ops_exception_list`, as the error message itself suggests.
    `convert(copy_of_ep, compile_config)` stands in for `to_edge` (the XNNPACK lane gives
    `to_edge_transform_and_lower` with its partitioner); each try converts a fresh copy.

    That list is read by the dialect verifiers alone (executorch/exir/verification/
    verifier.py): an allowed operator the graph does not hold changes nothing. So with
    the speedups on (fuzz/speedups.py) the operators allowed for earlier programs are
    allowed from the first try: each failed try re-ran all of `run_decompositions`
    (lab/bench_non_core.py measures the saving). With them off, each program
    learns its own, as a user's script would."""
    remember = speedups.enabled("exir")
    exceptions: list[Any] = list(_ALLOWED_NON_CORE) if remember else []
    # Copies of `ep` share its ShapeEnv: a try that fails leaves the unbacked symbols its
    # decompositions created pending there, and the next try's tracing then raises
    # PendingUnbackedSymbolNotFound (seen with to_edge_transform_and_lower and bincount).
    # Each try starts from the state the first one saw.
    shape_env = contract.shape_env(ep)
    pending = list(shape_env.pending_fresh_unbacked_symbols) if shape_env else []
    for _ in range(max_retries):
        if shape_env is not None:
            shape_env.pending_fresh_unbacked_symbols[:] = pending
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # a copy of the list: upstream's verifiers may extend a list they are given
                config = EdgeCompileConfig(_core_aten_ops_exception_list=list(exceptions))
                if convert is not None:
                    return convert(copy.deepcopy(ep), config)
                return to_edge(copy.deepcopy(ep), compile_config=config)
        except SpecViolationError as e:
            m = _NON_CORE.search(str(e))
            if not m:
                raise Unsupported(f"edge dialect: {str(e).strip()[:300]}") from e
            ns, op, overload = m.groups()
            allowed = getattr(getattr(getattr(torch.ops, ns), op), overload)
            if allowed in exceptions:  # allowed and still refused: not ours to retry
                raise Unsupported(f"edge dialect: {str(e).strip()[:300]}") from e
            exceptions.append(allowed)
            if remember:
                _ALLOWED_NON_CORE.append(allowed)
    raise Unsupported(f"edge dialect: too many non-core operators {exceptions}")


class SpecProbe(PassBase):
    """Stands in the sym_shape_eval_pass slot: records the specs, then runs the real pass
    (ConstraintBasedSymShapeEvalPass unless `inner` is given)."""

    def __init__(self, inner: Any = None):
        super().__init__()
        if inner is None:
            inner = ConstraintBasedSymShapeEvalPass()
        self.inner = inner
        self.records: list[SpecRecord] | None = None
        self.gm: torch.fx.GraphModule | None = None

    def call(self, gm: torch.fx.GraphModule) -> PassResult:
        self.gm = gm
        self.records = snapshot_specs(gm)
        return self.inner(gm)

    @property
    def bounds(self) -> dict[int, list[int | None]]:
        return {r.spec_id: r.bound for r in self.records or []}


def to_executorch(edge, algo: str = "greedy", probe: Any = None):
    """The real `EdgeProgramManager.to_executorch` on a deep copy of `edge`."""
    config = ExecutorchBackendConfig(
        memory_planning_pass=memory_planning_pass(algo),
        **({"sym_shape_eval_pass": probe} if probe is not None else {}),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return copy.deepcopy(edge).to_executorch(config)


# to_executorch errors that state a documented limitation, not a miscompilation.
_UNSUPPORTED = ("Missing out variants", "Unsupported control flow operator")


def is_unsupported(error: BaseException) -> bool:
    """to_executorch refused the program for a documented limitation (a skip)."""
    return any(m in str(error) for m in _UNSUPPORTED)


_BOUND_ERRORS = (
    "Cannot evaluate a finite upper bound",
    "Cannot evaluate the shape upper bound",
    # The planner's own words for the same cause: "mem_offset N does not fit in 64 bits ...
    # an unbacked SymInt with its upper bound lazily set to 2^64-1" (executorch 1.5.1).
    "does not fit in 64 bits",
)
# The same unbounded size reaching the emitter as torch's int_oo stand-in, 2^63 - 1, or a
# few below it where a bound was derived from it: "bad number 9223372036854775806 for
# type int32" (int_oo - 1), and 9223372036854775805 under a bound computed one short.
_INT_OO_NEAR = re.compile(r"\b9223372036854775[78]\d\d\b")
_INT_OO = 2**63 - 1


def _near_int_oo(text: str) -> bool:
    return any(0 <= _INT_OO - int(m.group()) <= 16 for m in _INT_OO_NEAR.finditer(text))


def is_bound_error(error: BaseException) -> bool:
    """The sym-shape pass found no finite upper bound for some spec."""
    text = str(error)
    return any(m in text for m in _BOUND_ERRORS) or _near_int_oo(text)


def skip_unbounded(report: Any, ep: torch.export.ExportedProgram, error: BaseException) -> bool:
    """When `error` names a missing bound (`is_bound_error`), record the proof a skip
    needs, the ATen program's tensors of no finite upper bound under its declared
    ranges (details["unbounded"]); with a proof, make the lane report a counted skip and
    say True. The EXIR and XNNPACK lanes' `to_executorch` share it."""
    if not is_bound_error(error):
        return False
    report.details["unbounded"] = proof = unbounded_sizes(ep)
    if proof:
        report.skipped = f"no finite upper bound: {proof[0]}: {str(error).strip()[:300]}"
        report.counters["unsupported-skip"] += 1
    return bool(proof)


# ---------------------------------------------------------------------------------------
# One build


@dataclasses.dataclass
class ExirBuild:
    """Everything one pipeline run produced (tests corrupt parts of it on purpose)."""

    ep: torch.export.ExportedProgram  # the pristine ATen program
    edge: Any  # pristine EdgeProgramManager (deep-copied before each to_executorch)
    et: Any = None  # ExecutorchProgramManager of the greedy pipeline
    buffer: bytes | None = None
    probe: SpecProbe | None = None  # of the greedy pipeline
    error: BaseException | None = None  # what to_executorch raised, if it did
    timings: Counter = dataclasses.field(default_factory=Counter)
    # symbol=value -> the stage that specialized a dim the exported contract declares
    # dynamic (fuzz.backends.exir.contract.specialized): {"s77=3": "to_edge"}
    specialized: dict[str, str] = dataclasses.field(default_factory=dict)
    # symbol=value -> the frame whose guard specialized it (contract.specialized_by):
    # {"s53=4": "executorch/exir/tensor.py:__lt__"}
    specialized_by: dict[str, str] = dataclasses.field(default_factory=dict)
    # "<size expression>=<int>" -> "<stage>:<op>", the stage whose graph first made a size
    # that the program computes from dynamic dims static without specializing a dim, and
    # the op of the node that did (fuzz.backends.exir.graph.static_sizes):
    # {"s27*s53 + 1=16": "to_edge:dim_order_ops._empty_dim_order.default"}
    static_sizes: dict[str, str] = dataclasses.field(default_factory=dict)

    def note_specialized(self, stage: str, program: Any = None) -> None:
        contract.note_specialized(self.ep, stage, self.specialized, self.specialized_by)
        if program is not None:
            for size, op in static_sizes(program.graph_module).items():
                self.static_sizes.setdefault(size, f"{stage}:{op}")

    @property
    def specialized_empty(self) -> list[str]:
        """The specialized dims ("s77=2") whose symbol sizes a value that is empty at the
        export example (contract.empty_at_example)."""
        empty = contract.empty_at_example(self.ep)
        return sorted(sym for sym in self.specialized if sym.partition("=")[0] in empty)

    @property
    def et_program(self):
        return self.et.exported_program() if self.et is not None else None

    @property
    def planned_gm(self) -> torch.fx.GraphModule | None:
        return self.et_program.graph_module if self.et is not None else None


def build(
    program: Callable[..., Any],
    example: tuple,
    dims: dict[int, dict[int, tuple[int, int]]] | None = None,
) -> ExirBuild:
    """export -> to_edge -> to_executorch (greedy, with the spec probe). Raises
    ExportRefused / Unsupported; other to_executorch errors are kept in `.error`."""
    if speedups.enabled("exir"):  # $FUZZ_SPEEDUPS / --speedups (fuzz/speedups.py)
        install_speedups()
    t = time.perf_counter()
    try:
        ep = export_program(program, example, dims or {})
    except Exception as e:
        if is_export_refusal(e):
            first = (str(e).strip().splitlines() or [""])[0]
            raise ExportRefused(f"{type(e).__name__}: {first[:300]}") from e
        raise StageError("export", e) from e
    t_export = time.perf_counter() - t
    contract.freeze(ep)  # before the lowering's guards can narrow it
    t = time.perf_counter()
    try:
        edge = lower_to_edge(ep)
    except Unsupported:
        raise
    except Exception as e:
        raise StageError("to_edge", e, ep) from e
    t_edge = time.perf_counter() - t
    result = ExirBuild(ep, edge, timings=Counter(export=t_export, to_edge=t_edge))
    result.note_specialized("to_edge", edge.exported_program())
    result.probe = SpecProbe()
    t = time.perf_counter()
    try:
        result.et = to_executorch(edge, "greedy", result.probe)
        result.buffer = result.et.buffer
    except Exception as e:
        if is_unsupported(e):
            raise Unsupported(f"to_executorch: {str(e).strip()[:300]}") from e
        result.error = e
    result.timings["to_executorch"] = time.perf_counter() - t
    result.note_specialized("to_executorch", result.et_program)
    return result


def unbounded_sizes(ep: Any) -> list[str]:
    """Each tensor of the ATen program (nested graphs too), as "node: shape", with a size
    of no finite upper bound under the ranges the program declares."""
    ranges = exir_plan.declared_ranges(ep)
    return [
        f"{node.name}: {tuple(v.shape)}"
        for _, level in graph_levels(ep.graph_module)
        for node in level.graph.nodes
        for v in pytree.tree_leaves(node.meta.get("val"))
        if isinstance(v, torch.Tensor) and exir_plan.numel_bound(v, ranges) is None
    ]
