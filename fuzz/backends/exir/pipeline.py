"""The ExecuTorch pipeline the EXIR lane runs: export -> to_edge -> to_executorch.

The pipeline is the one ExecuTorch users run (`to_edge(export(...)).to_executorch(...)`)
with three hooks that do not change what it computes:

  * the `sym_shape_eval_pass` slot holds `SpecProbe`, which records every TensorSpec
    as SpecPropPass (and the passes up to view-copy removal) left it, then runs the
    stock ConstraintBasedSymShapeEvalPass;
  * `memory_planning_pass` is a fresh MemoryPlanningPass per run (the config default
    is one shared instance), greedy for the main pipeline, naive for a second one;
  * the pipeline-variance check re-runs the passes of `to_executorch` itself
    (`mirror_to_executorch`, a copy of 1.5.1's per-program loop, tested against the
    real one) with an extra SpecPropPass inserted.

Version differences (the legacy lane runs executorch 1.0.1 on torch 2.9.1) are
feature-detected, not version-compared: the ShapeEnv's version counters
(`_version_counters`) and the signature of `edge_to_executorch_passes`
(`executorch_passes`).

to_executorch changes the edge program in place, so every pipeline runs on a deep copy
of one pristine EdgeProgramManager. What a mirror pipeline does to the ShapeEnv all the
copies share is undone (`shape_envs_restored`).

Export refusals raise `ExportRefused`, programs the edge dialect or the out-variant pass
do not support `Unsupported` (both skips for the lane); any other failure of export or
to_edge raises `StageError`, and a failure of to_executorch is kept in
`ExirBuild.error` (the lane judges it: exir.bound-loss, a skip, or exir.crash).

Longer than the lane's other modules: export, lowering, the spec probe and the mirror of
to_executorch with its ShapeEnv isolation are one piece: one sequence of ExecuTorch calls, read
top to bottom.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import re
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import executorch.exir.program._program as P
import torch
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy, naive
from executorch.exir.passes import MemoryPlanningPass
from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass
from torch._export.verifier import SpecViolationError
from torch.export import Dim
from torch.fx.passes.infra.pass_base import PassBase, PassResult

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)
from fuzz.backends.exir.inputs import independent
from fuzz.backends.exir.mapping import snapshot_specs
from fuzz.errors import error_text
from fuzz.oracles.exir_graph import SpecRecord, graph_levels, is_memory_view, shape_envs


class ExportRefused(Exception):
    """torch.export (or the edge dialect) declined the program: a skip, not a divergence."""


class Unsupported(Exception):
    """The ExecuTorch pipeline does not support the program (documented limitation)."""


class NotApplicable(Exception):
    """A variance insertion point that does not apply to this program."""


class StageError(Exception):
    """A pipeline stage raised unexpectedly; `.stage` names it, `__cause__` is the error."""

    def __init__(self, stage: str, error: BaseException):
        super().__init__(f"{stage}: {error_text(error, None)}")
        self.stage, self.error = stage, error


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


def lower_to_edge(ep: torch.export.ExportedProgram, max_retries: int = 6):
    """`to_edge(ep)`; an operator outside the Core ATen opset (masked_select, ...) is
    added to `_core_aten_ops_exception_list`, as the error message itself suggests."""
    exceptions: list[Any] = []
    for _ in range(max_retries):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return to_edge(
                    copy.deepcopy(ep),
                    compile_config=EdgeCompileConfig(_core_aten_ops_exception_list=exceptions),
                )
        except SpecViolationError as e:
            m = _NON_CORE.search(str(e))
            if not m:
                raise Unsupported(f"edge dialect: {str(e).strip()[:300]}") from e
            ns, op, overload = m.groups()
            exceptions.append(getattr(getattr(getattr(torch.ops, ns), op), overload))
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


def memory_planning_pass(algo: str):
    return MemoryPlanningPass(
        memory_planning_algo=MemoryPlanningAlgorithmSuite(
            algo_list=[{"greedy": greedy, "naive": naive}[algo]]
        )
    )


def to_executorch(edge, algo: str = "greedy", probe: Any = None):
    """The real `EdgeProgramManager.to_executorch` on a deep copy of `edge`."""
    config = ExecutorchBackendConfig(
        memory_planning_pass=memory_planning_pass(algo),
        **({"sym_shape_eval_pass": probe} if probe is not None else {}),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return copy.deepcopy(edge).to_executorch(config)


def _copy_state(value: Any) -> Any:
    """A copy of one ShapeEnv attribute deep enough that later in-place updates (dict
    entries, list appends, the lists inside deferred_runtime_asserts) leave it alone."""
    if isinstance(value, dict):
        out = copy.copy(value)
        for k, v in out.items():
            if isinstance(v, (dict, list, set)):
                out[k] = copy.copy(v)
        return out
    return copy.copy(value) if isinstance(value, (list, set)) else value


@contextlib.contextmanager
def shape_envs_restored(envs: Sequence[Any]) -> Iterator[None]:
    """Undo what a pipeline run teaches the ShapeEnvs it shares with the pristine programs.

    Deep copies of an exported or edge program share their ShapeEnv (a SymInt deep-copies
    to itself), so guards a re-trace adds there (e.g. `s77 <= 2`, which replaces s77 by 2)
    would reach every later oracle: the contract check, the probes, the other variance
    points. The state is put back afterwards and the version counters are moved on, so
    the env's caches and the SymNodes' cached expressions are recomputed."""
    saved = [(env, {k: _copy_state(v) for k, v in vars(env).items()}) for env in envs]
    try:
        yield
    finally:
        for env in {id(type(e)): type(e) for e in envs}.values():
            # plain lru_caches on ShapeEnv methods (`_inner_evaluate_expr` among them) are
            # keyed by the env, not its version: a cached evaluation would skip the guard
            # it should add again
            for attr in vars(env).values():
                if hasattr(attr, "cache_clear"):
                    attr.cache_clear()
        for env, state in saved:
            current = {k: getattr(env, k) for k in _version_counters(state)}
            for k in list(vars(env)):
                if k not in state:
                    delattr(env, k)
            for k, v in state.items():
                setattr(env, k, _copy_state(v))
            for k, now in current.items():
                setattr(env, k, max(now, state[k]) + 1)


def _version_counters(state: dict[str, Any]) -> list[str]:
    """The ShapeEnv's version counters among its attributes: `_version_counter` (the env's
    caches) and, where torch has it, `_replacements_version_counter` (torch 2.13's
    SymNode.expr cache; torch 2.9's SymNode.expr recomputes every time and has none)."""
    return [
        k
        for k, v in state.items()
        if k.endswith("version_counter") and isinstance(v, int) and not isinstance(v, bool)
    ]


def mirror_to_executorch(
    edge, insert: str | None = None, algo: str = "greedy"
) -> torch.fx.GraphModule:
    """The per-program loop of executorch 1.5.1's `EdgeProgramManager.to_executorch`
    (up to memory planning, no emission) with one extra `SpecPropPass` inserted. With the
    default config it is also 1.0.1's loop: the pass list comes from the installed
    `edge_to_executorch_passes` (1.0.1 puts SpecPropPass first and has no dim-order
    legalization), the steps the two versions add around it are off by default.

      insert="repeat"         right after the pipeline's own SpecPropPass;
      insert="after-asserts"  right after RemoveGraphAssertsPass (before view-copy
                              removal and the sym-shape pass);
      insert="before-planning" right before the sym-shape pass, the last point before
                              memory planning where specs are still symbolic. SpecPropPass
                              cannot re-trace `memory.view` nodes (ExportPass rejects the
                              target), so on programs with such views this point raises
                              `NotApplicable`.
    Returns the planned graph module. What the run teaches the ShapeEnv that `edge`
    shares with its copies is undone afterwards (`shape_envs_restored`).
    """
    with shape_envs_restored(shape_envs(edge.exported_program().graph_module)):
        return _mirror_to_executorch(edge, insert, algo)


def executorch_passes(config: Any, edge) -> list[Any]:
    """`edge_to_executorch_passes` as `to_executorch` calls it: with the edge compile config
    where the function takes one (1.5.1: it decides the LegalizePortableDimOrderPass),
    without on executorch 1.0.x, whose signature is `(config, name)`."""
    fn = P.edge_to_executorch_passes
    if "edge_compile_config" in inspect.signature(fn).parameters:
        return fn(config, "forward", edge_compile_config=edge.compile_config)
    return fn(config, "forward")


def _mirror_to_executorch(edge, insert: str | None, algo: str) -> torch.fx.GraphModule:
    edge = copy.deepcopy(edge)
    config = ExecutorchBackendConfig()
    program = edge.exported_program()
    program = P.weights_to_outputs_pass(program)
    program = P.unsafe_remove_auto_functionalized_pass(program)
    _, signature = P.insert_write_back_for_buffers_pass(program)
    gm = program.graph_module
    passes = executorch_passes(config, edge)
    if insert == "repeat":
        at = next(i for i, p in enumerate(passes) if isinstance(p, P.SpecPropPass)) + 1
    elif insert == "after-asserts":
        at = next(i for i, p in enumerate(passes) if isinstance(p, P.RemoveGraphAssertsPass)) + 1
    elif insert == "before-planning":
        at = next(i for i, p in enumerate(passes) if p is config.sym_shape_eval_pass)
    elif insert is not None:
        raise ValueError(f"unknown insertion point {insert!r}")
    if insert is not None:
        passes.insert(at, P.SpecPropPass())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, p in enumerate(passes):
            if (
                insert == "before-planning"
                and i == at
                and any(
                    is_memory_view(n.target) for _, lvl in graph_levels(gm) for n in lvl.graph.nodes
                )
            ):
                raise NotApplicable("SpecPropPass cannot re-trace memory.view nodes")
            gm = p(gm).graph_module
            if isinstance(p, P.SpecPropPass):
                p.update_placeholder_tensor_specs(program, gm)
        memory_planning_pass(algo).run(gm, signature)
    return gm


# to_executorch errors that state a documented limitation, not a miscompilation.
_UNSUPPORTED = ("Missing out variants", "Unsupported control flow operator")
_BOUND_ERRORS = ("Cannot evaluate a finite upper bound", "Cannot evaluate the shape upper bound")


def is_bound_error(error: BaseException) -> bool:
    """The sym-shape pass found no finite upper bound for some spec."""
    return any(m in str(error) for m in _BOUND_ERRORS)


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
    t = time.perf_counter()
    try:
        ep = export_program(program, example, dims or {})
    except Exception as e:
        if is_export_refusal(e):
            first = (str(e).strip().splitlines() or [""])[0]
            raise ExportRefused(f"{type(e).__name__}: {first[:300]}") from e
        raise StageError("export", e) from e
    t_export = time.perf_counter() - t
    t = time.perf_counter()
    try:
        edge = lower_to_edge(ep)
    except Unsupported:
        raise
    except Exception as e:
        raise StageError("to_edge", e) from e
    t_edge = time.perf_counter() - t
    result = ExirBuild(ep, edge, timings=Counter(export=t_export, to_edge=t_edge))
    result.probe = SpecProbe()
    t = time.perf_counter()
    try:
        result.et = to_executorch(edge, "greedy", result.probe)
        result.buffer = result.et.buffer
    except Exception as e:
        if any(m in str(e) for m in _UNSUPPORTED):
            raise Unsupported(f"to_executorch: {str(e).strip()[:300]}") from e
        result.error = e
    result.timings["to_executorch"] = time.perf_counter() - t
    return result
