"""The EXIR lane: torch.export -> to_edge -> to_executorch (memory planned) -> runtime.

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
(`_version_counters`), the signature of `edge_to_executorch_passes`
(`executorch_passes`), and in the oracles whether the planner aliases in-place results
(`exir_aliasing.planner_aliases_inplace_results`).

to_executorch changes the edge program in place, so every pipeline runs on a deep copy
of one pristine EdgeProgramManager. The export example is the first call, unless a
dynamic dim has size 0 or 1 there (export would specialize it): then the first call
whose dynamic dims are all >= 2 (`pick_example`), exported as independent contiguous
copies, the inputs the runtime is fed (`export_example`). What a mirror pipeline does to
the ShapeEnv all the copies share is undone (`shape_envs_restored`). Planning and the
runtime stay on the host; on CUDA only the eager reference (the engine's `reference`)
ran on the GPU.

Oracles (fuzz/oracles/exir_*.py): exir.spec-meta, exir.bound-loss, exir.overlap,
exir.aliasing, exir.under-allocation, exir.runtime-result, exir.unchecked-contract,
exir.pipeline-variance; exir.crash when a stage raises where eager did not. Export
refusals are skips (`report.skipped`, counters["export-skip"]), as are programs the
edge dialect or the out-variant pass do not support (counters["unsupported-skip"]).
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
from typing import Any, ClassVar

import torch
import torch.utils._pytree as pytree
from torch.fx.passes.infra.pass_base import PassBase, PassResult

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)
from fuzz.backends.base import LaneReport
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.observe import CallRecord
from fuzz.oracles import exir_aliasing, exir_plan, exir_runtime
from fuzz.oracles.exir_trace import (
    PlannedTensor,
    graph_levels,
    interpret_aten,
    is_memory_view,
    map_planned,
)
from fuzz.tensors import copy_args, map_tensors

VARIANCE_POINTS = ("repeat", "after-asserts", "before-planning")
ALGOS = ("greedy", "naive")


class ExportRefused(Exception):
    """torch.export (or the edge dialect) declined the program: a skip, not a divergence."""


class Unsupported(Exception):
    """The ExecuTorch pipeline does not support the program (documented limitation)."""


class NotApplicable(Exception):
    """A variance insertion point that does not apply to this program."""


class StageError(Exception):
    """A pipeline stage raised unexpectedly; `.stage` names it, `__cause__` is the error."""

    def __init__(self, stage: str, error: BaseException):
        super().__init__(f"{stage}: {type(error).__name__}: {error}")
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


def derive_dims(case: Case, calls: Sequence[tuple]) -> dict[int, dict[int, tuple[int, int]]]:
    """{arg position: {dim: (min, max)}}: case.dims when given, else the dims of top-level
    tensor arguments whose size varies across the calls (min/max of observed sizes)."""
    names = case.input_names()
    if case.dims is not None:
        return {
            names.index(n): {int(d): (int(lo), int(hi)) for d, (lo, hi) in dims.items()}
            for n, dims in case.dims.items()
            if n in names
        }
    out: dict[int, dict[int, tuple[int, int]]] = {}
    first = calls[0]
    for p, a in enumerate(first):
        if not isinstance(a, torch.Tensor):
            continue
        for d in range(a.dim()):
            sizes = [
                c[p].shape[d]
                for c in calls
                if len(c) > p and isinstance(c[p], torch.Tensor) and c[p].dim() == a.dim()
            ]
            if len(set(sizes)) > 1:
                out.setdefault(p, {})[d] = (min(sizes), max(sizes))
    return out


def pick_example(calls: Sequence[tuple], dims: dict[int, dict[int, tuple[int, int]]]) -> int:
    """Index of the call to export with: the first call, unless its size on a dynamic dim
    is 0 or 1 (export would specialize the dim to it, leaving every other call outside
    the contract); then the first call whose dynamic dims all have sizes >= 2."""

    def ok(call: tuple) -> bool:
        return all(
            len(call) > p
            and isinstance(call[p], torch.Tensor)
            and call[p].dim() > d
            and call[p].shape[d] >= 2
            for p, ds in dims.items()
            for d in ds
        )

    return next((i for i, c in enumerate(calls) if ok(c)), 0)


def dynamic_shapes_for(
    module: torch.nn.Module, args: tuple, dims: dict[int, dict[int, tuple[int, int]]]
) -> Any:
    if not dims:
        return None
    from torch.export import Dim

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


def export_example(example: Sequence[Any]) -> tuple:
    """The example as the runtime is fed: each tensor an independent contiguous copy.

    Export bakes the example's layout into the program (a transposed example gives its
    placeholder dim order (1, 0), which the pip runtime cannot be fed: it takes contiguous
    inputs only), and it bakes in the example's aliasing (the same tensor passed as two
    inputs becomes one node: the graph reads one input where the program reads the other,
    pytorch/pytorch#144683). The runtime gets independent contiguous copies
    (`exir_runtime.runtime_inputs`), so that is what the program is exported for."""

    def fresh(value: torch.Tensor) -> torch.Tensor:
        out = value.detach().clone(memory_format=torch.contiguous_format)
        return out.requires_grad_(value.requires_grad) if value.is_leaf else out

    return tuple(map_tensors(fresh, a) for a in example)


def export_program(
    program: Callable[..., Any], example: tuple, dims: dict[int, dict[int, tuple[int, int]]]
) -> torch.export.ExportedProgram:
    module = as_module(program)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(
            module,
            export_example(example),
            dynamic_shapes=dynamic_shapes_for(module, example, dims),
            strict=False,
        )


# ---------------------------------------------------------------------------------------
# to_edge / to_executorch


_NON_CORE = re.compile(r"Operator (?:torch\._ops\.)?(\w+)\.(\w+)\.(\w+) is not in Core ATen")


def lower_to_edge(ep: torch.export.ExportedProgram, max_retries: int = 6):
    """`to_edge(ep)`; an operator outside the Core ATen opset (masked_select, ...) is
    added to `_core_aten_ops_exception_list`, as the error message itself suggests."""
    from executorch.exir import EdgeCompileConfig, to_edge
    from torch._export.verifier import SpecViolationError

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
            from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass

            inner = ConstraintBasedSymShapeEvalPass()
        self.inner = inner
        self.records: list[exir_plan.SpecRecord] | None = None
        self.gm: torch.fx.GraphModule | None = None

    def call(self, gm: torch.fx.GraphModule) -> PassResult:
        self.gm = gm
        self.records = exir_plan.snapshot_specs(gm)
        return self.inner(gm)

    @property
    def bounds(self) -> dict[int, list[int | None]]:
        return {r.spec_id: r.bound for r in self.records or []}


def memory_planning_pass(algo: str):
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy, naive
    from executorch.exir.passes import MemoryPlanningPass

    return MemoryPlanningPass(
        memory_planning_algo=MemoryPlanningAlgorithmSuite(
            algo_list=[{"greedy": greedy, "naive": naive}[algo]]
        )
    )


def to_executorch(edge, algo: str = "greedy", probe: Any = None):
    """The real `EdgeProgramManager.to_executorch` on a deep copy of `edge`."""
    from executorch.exir import ExecutorchBackendConfig

    config = ExecutorchBackendConfig(
        memory_planning_pass=memory_planning_pass(algo),
        **({"sym_shape_eval_pass": probe} if probe is not None else {}),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return copy.deepcopy(edge).to_executorch(config)


def shape_envs(gm: torch.fx.GraphModule) -> list[Any]:
    """The ShapeEnvs behind the symbolic sizes in `gm`'s (and its submodules') meta['val']."""
    envs: dict[int, Any] = {}
    for _, level in graph_levels(gm):
        for node in level.graph.nodes:
            for v in pytree.tree_leaves(node.meta.get("val")):
                for s in list(v.shape) if isinstance(v, torch.Tensor) else [v]:
                    if isinstance(s, (torch.SymInt, torch.SymBool, torch.SymFloat)):
                        envs.setdefault(id(s.node.shape_env), s.node.shape_env)
    return list(envs.values())


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


def executorch_passes(P: Any, config: Any, edge) -> list[Any]:
    """`edge_to_executorch_passes` as `to_executorch` calls it: with the edge compile config
    where the function takes one (1.5.1: it decides the LegalizePortableDimOrderPass),
    without on executorch 1.0.x, whose signature is `(config, name)`."""
    fn = P.edge_to_executorch_passes
    if "edge_compile_config" in inspect.signature(fn).parameters:
        return fn(config, "forward", edge_compile_config=edge.compile_config)
    return fn(config, "forward")


def _mirror_to_executorch(edge, insert: str | None, algo: str) -> torch.fx.GraphModule:
    import executorch.exir.program._program as P
    from executorch.exir import ExecutorchBackendConfig

    edge = copy.deepcopy(edge)
    config = ExecutorchBackendConfig()
    program = edge.exported_program()
    program = P.weights_to_outputs_pass(program)
    program = P.unsafe_remove_auto_functionalized_pass(program)
    _, signature = P.insert_write_back_for_buffers_pass(program)
    gm = program.graph_module
    passes = executorch_passes(P, config, edge)
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


# ---------------------------------------------------------------------------------------
# The lane


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


_ROOT_SUFFIX = re.compile(r" of root \S+$")


def count_mapping(planned: list[PlannedTensor], report: LaneReport) -> None:
    """Per program: planned tensors the plan oracles check (`planned-mapped`) and those
    they cannot (`planned-unmapped`, by reason in details["unmapped"]). Counted once per
    planned buffer: getitems (their producer's spec), constants and unplanned specs are
    left out."""
    why: Counter = Counter()
    for pt in planned:
        if pt.spec.const or pt.spec.mem_offset is None or pt.target == "getitem":
            continue
        if pt.mapped:
            report.counters["planned-mapped"] += 1
        else:
            report.counters["planned-unmapped"] += 1
            why[_ROOT_SUFFIX.sub("", pt.how.removeprefix("unmapped:"))] += 1
    report.details["unmapped"] = dict(why)


class ExirLane:
    name: ClassVar[str] = "exir"

    def __init__(
        self,
        *,
        algos: Sequence[str] = ALGOS,
        variance_points: Sequence[str] = VARIANCE_POINTS,
        bound_factor: float = 1.0,
        custom_bound_factor: float = 1.0,
        check_lower_bounds: bool = False,
        runtime: bool = True,
        strict: bool = False,
    ):
        """`bound_factor` / `custom_bound_factor`: how far a planned bound may exceed the
        declared one (core ops / custom ops such as fuzz::*) before exir.bound-loss.
        `check_lower_bounds`: also report min-1 probes the runtime accepts (it never
        checks lower bounds: see the notes in the final report). `strict`: an oracle's
        own exception propagates instead of being counted (tests use it)."""
        self.algos = tuple(algos)
        self.variance_points = tuple(variance_points)
        self.bound_factor = bound_factor
        self.custom_bound_factor = custom_bound_factor
        self.check_lower_bounds = check_lower_bounds
        self.use_runtime = runtime
        self.strict = strict

    def unavailable(self, device: str) -> str | None:
        if device == "cpu":
            return None
        if device == "cuda":
            return None if torch.cuda.is_available() else "CUDA is not available"
        return f"unknown device {device!r}"

    def factor(self, pt: PlannedTensor) -> float:
        return self.custom_bound_factor if exir_plan.is_custom_op(pt.target) else self.bound_factor

    # -- helpers ---------------------------------------------------------------------

    def _guard(
        self, report: LaneReport, oracle: str, fn: Callable[[], Any], default: Any = ()
    ) -> Any:
        try:
            return fn()
        except Exception as e:
            if self.strict:
                raise
            report.counters["oracle-error"] += 1
            report.details.setdefault("oracle_errors", []).append(
                f"{oracle}: {type(e).__name__}: {e}"[:400]
            )
            return default

    # -- the run ---------------------------------------------------------------------

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        report = LaneReport(self.name, device)
        host = [copy_args(c, "cpu") for c in calls]
        dims = derive_dims(case, host)
        example = pick_example(host, dims)
        report.details["example_call"] = example
        try:
            b = build(case.program, host[example], dims)
        except ExportRefused as e:
            report.skipped = f"export refused: {e}"
            report.counters["export-skip"] += 1
            return report
        except Unsupported as e:
            report.skipped = f"unsupported: {e}"
            report.counters["unsupported-skip"] += 1
            return report
        except StageError as e:
            if reference and reference[example].error:
                report.skipped = (
                    f"{e.stage} raised on an example eager also rejects: {type(e.error).__name__}"
                )
                return report
            what = f"{type(e.error).__name__}: {str(e.error)[:500]}"
            report.divergences.append(
                Divergence("exir.crash", e.stage, what, device, {"error": what})
            )
            return report
        report.timings.update(b.timings)
        report.details["range_constraints"] = {
            str(k): str(v) for k, v in b.ep.range_constraints.items()
        }
        self.check_build(b, case, host, calls, reference, device, report)
        return report

    def check_build(
        self,
        b: ExirBuild,
        case: Case | None,
        host: list[tuple],
        calls: list[tuple],
        reference: list[CallRecord],
        device: str,
        report: LaneReport,
    ) -> None:
        """Every oracle on one build, in order: spec-meta (probe snapshot), bound-loss,
        overlap (greedy and naive plans), pipeline-variance, alias structure; then per
        call inside the contract: under-allocation, alias boundary, runtime-result; then
        the contract probes. `host` are CPU copies of `calls` (the engine's arguments,
        on the case's device, left untouched for the mutation check)."""
        t_checks = time.perf_counter()
        div = report.divergences
        if b.probe is not None and b.probe.records is not None:
            div += self._guard(
                report, "spec-meta", lambda: exir_plan.check_spec_meta(b.probe.records, device)
            )
        if b.error is not None:
            self._check_failed_pipeline(b, device, report)
            report.timings["checks"] += time.perf_counter() - t_checks
            return
        gm = b.planned_gm
        report.details["arena"] = list(gm.meta.get("non_const_buffer_sizes", []))
        planned = self._guard(report, "mapping", lambda: map_planned(gm, b.ep.graph_module), [])
        report.details["mapping"] = dict(Counter(p.how.split(":")[0] for p in planned))
        count_mapping(planned, report)
        lost, table = self._guard(
            report,
            "bound-loss",
            lambda: exir_plan.check_bounds(
                planned, b.ep, self.factor, b.probe.bounds if b.probe else None, device
            ),
            ([], []),
        )
        report.details["bounds"] = table
        div += lost
        self._check_plans(b, device, report)
        t_runtime = self._check_calls(b, planned, host, calls, reference, device, report)
        report.timings["runtime"] += t_runtime
        report.timings["checks"] += time.perf_counter() - t_checks - t_runtime

    def _check_failed_pipeline(self, b: ExirBuild, device: str, report: LaneReport) -> None:
        """to_executorch raised. A lost bound (the sym-shape pass found int_oo where the
        program declares a finite bound) is exir.bound-loss, judged from the probe's
        snapshot; no finite bound anywhere is a skip; anything else is exir.crash."""
        planned = self._guard(
            report,
            "mapping",
            lambda: (
                map_planned(b.probe.gm, b.ep.graph_module)
                if b.probe is not None and b.probe.gm is not None
                else []
            ),
            [],
        )
        lost, table = self._guard(
            report,
            "bound-loss",
            lambda: exir_plan.check_bounds(planned, b.ep, self.factor, b.probe.bounds, device),
            ([], []),
        )
        report.details["bounds"] = table
        report.divergences.extend(lost)
        bound_error = any(m in str(b.error) for m in _BOUND_ERRORS)
        if bound_error and not lost:
            report.skipped = f"no finite upper bound: {str(b.error).strip()[:300]}"
            report.counters["unsupported-skip"] += 1
        elif not bound_error:
            what = f"{type(b.error).__name__}: {str(b.error)[:500]}"
            report.divergences.append(
                Divergence("exir.crash", "to_executorch", what, device, {"error": what})
            )

    def _check_plans(self, b: ExirBuild, device: str, report: LaneReport) -> None:
        """exir.overlap for each planning algorithm, exir.pipeline-variance for each
        SpecPropPass insertion point, exir.aliasing (structure) on the greedy plan."""
        gm, div = b.planned_gm, report.divergences
        for algo in self.algos:
            if algo == "greedy":
                prog = b.et_program
            else:
                try:
                    prog = to_executorch(b.edge, algo).exported_program()
                except Exception as e:
                    if "does not support storage-backed" in str(e):
                        report.counters[f"{algo}-unsupported"] += 1
                        continue
                    what = f"{type(e).__name__}: {str(e)[:500]}"
                    div.append(
                        Divergence(
                            "exir.crash", f"to_executorch[{algo}]", what, device, {"error": what}
                        )
                    )
                    continue
            div += self._guard(
                report,
                "overlap",
                lambda: exir_plan.check_overlap(
                    prog.graph_module, prog.graph_signature, algo, device
                ),
            )
        base = exir_plan.plan_fingerprint(gm)
        for point in self.variance_points:
            try:
                variant = exir_plan.plan_fingerprint(mirror_to_executorch(b.edge, point))
            except NotApplicable:
                report.counters[f"variance-{point}-n/a"] += 1
                continue
            except Exception as e:
                div.append(
                    Divergence(
                        "exir.pipeline-variance",
                        f"pipeline-variance[{point}]",
                        f"re-running SpecPropPass {point} makes the pipeline raise "
                        f"{type(e).__name__}: {str(e)[:300]}",
                        device,
                        {"point": point, "error": f"{type(e).__name__}: {str(e)[:300]}"},
                    )
                )
                continue
            div += exir_plan.compare_plans(base, variant, point, device)
        alias, notes = self._guard(
            report,
            "alias-structure",
            lambda: exir_aliasing.check_alias_structure(gm, device),
            ([], {}),
        )
        div += alias
        report.details["alias_notes"] = notes

    def _check_calls(
        self,
        b: ExirBuild,
        planned: list[PlannedTensor],
        host: list[tuple],
        calls: list[tuple],
        reference: list[CallRecord],
        device: str,
        report: LaneReport,
    ) -> float:
        """Per-call oracles and the contract probes; returns the seconds spent in the runtime."""
        div, et_program, t_runtime = report.divergences, b.et_program, 0.0
        facts = self._guard(
            report, "alias-boundary", lambda: exir_aliasing.boundary_facts(et_program), None
        )
        missing = (
            exir_runtime.missing_kernels(b.planned_gm)
            if self.use_runtime
            else ["(runtime disabled)"]
        )
        report.details["runtime"] = (
            "pip runtime" if not missing else f"static checks only: no kernel for {missing}"
        )
        loaded = None
        if missing:
            report.counters["runtime-static-only"] += 1
        else:
            t = time.perf_counter()
            try:
                loaded = exir_runtime.LoadedProgram(b.buffer)
            except Exception as e:
                div.append(
                    Divergence(
                        "exir.crash", "runtime-load", f"{type(e).__name__}: {str(e)[:500]}", device
                    )
                )
            t_runtime += time.perf_counter() - t
        legal: Counter = Counter()
        first_inside = None
        try:
            for i, (args, ref) in enumerate(zip(host, reference)):
                stage = f"call[{i}]"
                why = self._guard(
                    report,
                    "contract",
                    lambda: (
                        exir_runtime.outside_contract(b.ep, args)
                        or exir_runtime.aliased_mutation(et_program, args, ref)
                    ),
                    "the contract check failed",
                )
                if why is not None:
                    report.counters["call-outside-contract"] += 1
                    report.details.setdefault("outside_contract", []).append(f"{stage}: {why}")
                    continue
                first_inside = args if first_inside is None else first_inside
                report.counters["calls-checked"] += 1
                if not ref.error:
                    div += self._under_allocation(b, planned, args, stage, device, report)
                if facts is not None:
                    alias, ok = self._guard(
                        report,
                        "alias-boundary",
                        lambda: exir_aliasing.check_alias_boundary(
                            facts, ref, calls[i], stage, device
                        ),
                        ([], {}),
                    )
                    div += alias
                    legal.update(ok)
                if loaded is not None:
                    t = time.perf_counter()
                    got = exir_runtime.run_on_runtime(loaded, et_program, args)
                    t_runtime += time.perf_counter() - t
                    div += exir_runtime.compare_runtime(ref, got, stage, device)
            report.details["legal_aliasing"] = dict(legal)
            if loaded is not None and first_inside is not None:
                t = time.perf_counter()
                self._guard(
                    report,
                    "contract-probes",
                    lambda: self._probe_contract(b, loaded, first_inside, device, report),
                    None,
                )
                t_runtime += time.perf_counter() - t
        finally:
            if loaded is not None:
                loaded.close()  # the Method goes before its Program
        return t_runtime

    def _under_allocation(
        self,
        b: ExirBuild,
        planned: list[PlannedTensor],
        args: tuple,
        stage: str,
        device: str,
        report: LaneReport,
    ) -> list[Divergence]:
        try:
            values = interpret_aten(b.ep, copy_args(args))
        except Exception as e:  # e.g. a runtime assert of the ATen program: counted, not judged
            report.counters["aten-interpret-error"] += 1
            report.details.setdefault("aten_interpret_errors", []).append(
                f"{stage}: {type(e).__name__}: {str(e)[:200]}"
            )
            return []
        under, stats = self._guard(
            report,
            "under-allocation",
            lambda: exir_plan.check_under_allocation(planned, values, stage, device),
            ([], {}),
        )
        for k, v in stats.items():
            report.counters[f"tensors-{k}"] += v
        return under

    def _probe_contract(
        self, b: ExirBuild, loaded, example: tuple, device: str, report: LaneReport
    ) -> None:
        """exir.unchecked-contract: inputs just outside range_constraints, or inside them but
        failing an export guard, must be rejected."""
        results = []
        for probe in exir_runtime.contract_probes(b.ep, example):
            try:
                loaded.execute(exir_runtime.runtime_inputs(probe.args))
                accepted = True
            except Exception:
                accepted = False
            results.append({"probe": probe.name, "kind": probe.kind, "accepted": accepted})
            report.counters[f"contract-{probe.kind}-{'accepted' if accepted else 'rejected'}"] += 1
            if accepted and (probe.kind != "lower" or self.check_lower_bounds):
                outside = (
                    "the export guards"
                    if probe.kind == "guard"
                    else "the exported range_constraints"
                )
                report.divergences.append(
                    Divergence(
                        "exir.unchecked-contract",
                        f"contract[{probe.kind}]",
                        f"the runtime accepted {probe.name}, outside {outside}",
                        device,
                        {"probe": probe.name, "kind": probe.kind},
                    )
                )
        report.details["contract_probes"] = results
