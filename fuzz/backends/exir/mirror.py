"""The passes of to_executorch re-run outside it, with an extra SpecPropPass inserted.

The pipeline-variance check asks whether the memory plan depends on where SpecPropPass
runs. It needs the passes of `EdgeProgramManager.to_executorch` as a list it can insert
into: `mirror_to_executorch` is a copy of executorch 1.5.1's per-program loop (up to
memory planning, no emission), tested against the real one, with one extra
`SpecPropPass` at a named point:

  "repeat"          right after the pipeline's own SpecPropPass;
  "after-asserts"   right after RemoveGraphAssertsPass (before view-copy removal and the
                    sym-shape pass);
  "before-planning" right before the sym-shape pass, the last point before memory
                    planning where specs are still symbolic. SpecPropPass cannot re-trace
                    `memory.view` nodes (ExportPass rejects the target), so on programs
                    with such views this point is `NotApplicable`.

`mirror_points` gives what `mirror_to_executorch` gives for several points at once, and
the plan of the pipeline without an extra pass (the "trunk", planned with any algorithm:
the overlap check's naive plan), from one run of the passes. The trunk runs the passes
once; at each point a branch starts from the trunk's graph module with the extra
SpecPropPass and runs the rest of the pipeline with fresh pass objects, then the trunk
goes on. That is the isolated run exactly:
  * SpecPropPass is an ExportPass: it re-traces into a new graph module and leaves its
    input alone (node metadata is copied, every node gets a new TensorSpec), so a branch
    shares no graph, node or spec with the trunk or another branch;
  * the passes before a point are the same in the isolated run and on the trunk, run
    once on the trunk;
  * what a branch teaches the ShapeEnv (the guards a re-trace adds) is undone when it
    ends (`shape_envs_restored`), so the trunk, and every later branch, goes on from the
    state the isolated run would have at that point.
tests/stacks/exir/test_exir_variance_shared.py checks it against the isolated runs.

Version differences (the legacy lane runs executorch 1.0.1 on torch 2.9.1) are
feature-detected: the ShapeEnv's version counters (`_version_counters`) and the
signature of `edge_to_executorch_passes` (`executorch_passes`). With the default config
the loop is also 1.0.1's: the pass list comes from the installed
`edge_to_executorch_passes` (1.0.1 puts SpecPropPass first and has no dim-order
legalization), the steps the two versions add around it are off by default.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import executorch.exir.program._program as P
import torch
from executorch.exir import ExecutorchBackendConfig
from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy, naive
from executorch.exir.passes import MemoryPlanningPass

from fuzz.backends.exir.graph import graph_levels, is_memory_view, shape_envs
from fuzz.errors import FuzzError

POINTS = ("repeat", "after-asserts", "before-planning")


class NotApplicable(FuzzError):
    """A variance insertion point that does not apply to this program."""


def memory_planning_pass(algo: str):
    return MemoryPlanningPass(
        memory_planning_algo=MemoryPlanningAlgorithmSuite(
            algo_list=[{"greedy": greedy, "naive": naive}[algo]]
        )
    )


def executorch_passes(config: Any, edge) -> list[Any]:
    """`edge_to_executorch_passes` as `to_executorch` calls it: with the edge compile config
    where the function takes one (1.5.1: it decides the LegalizePortableDimOrderPass),
    without on executorch 1.0.x, whose signature is `(config, name)`."""
    fn = P.edge_to_executorch_passes
    if "edge_compile_config" in inspect.signature(fn).parameters:
        return fn(config, "forward", edge_compile_config=edge.compile_config)
    return fn(config, "forward")


# ---------------------------------------------------------------------------------------
# ShapeEnv isolation


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
    the env's caches and the SymNodes' cached expressions are recomputed.

    Unbacked symbols the run made are not forgotten: fake tensors memoize them
    (`unique_memo`, `nonzero_memo`, `item_memo` on the input), and a later run's re-trace
    of the same op takes the memoized symbol again. Dropping its range made that run raise
    `KeyError: u5` in the ShapeEnv (a false pipeline-variance at the second variance
    point), and rewinding the counter would give a new symbol the old one's name. So the
    unbacked counters only move on, and the ranges of the run's new unbacked symbols stay."""
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
            made = _unbacked_made(env, state)
            for k in list(vars(env)):
                if k not in state:
                    delattr(env, k)
            for k, v in state.items():
                setattr(env, k, _copy_state(v))
            for k, now in current.items():
                setattr(env, k, max(now, state[k]) + 1)
            for k, v in made.items():
                if isinstance(v, dict):
                    getattr(env, k).update(v)
                else:
                    setattr(env, k, v)


_UNBACKED_COUNTERS = ("unbacked_symint_counter", "unbacked_symfloat_counter")
_RANGES = ("var_to_range", "var_to_range_sloc")


def _unbacked_made(env: Any, state: dict[str, Any]) -> dict[str, Any]:
    """What a run made that outlives it (see `shape_envs_restored`): the unbacked counters
    as they are now, and the range entries of unbacked symbols the saved state lacks."""
    from torch.utils._sympy.symbol import SymT, symbol_is_type

    made: dict[str, Any] = {
        k: max(getattr(env, k), state[k])
        for k in _UNBACKED_COUNTERS
        if isinstance(state.get(k), int) and isinstance(getattr(env, k, None), int)
    }
    unbacked = (SymT.UNBACKED_INT, SymT.UNBACKED_FLOAT)
    for k in _RANGES:
        now, before = getattr(env, k, None), state.get(k)
        if isinstance(now, dict) and isinstance(before, dict):
            made[k] = {
                s: v
                for s, v in now.items()
                if s not in before
                and getattr(s, "is_Symbol", False)
                and symbol_is_type(s, unbacked)
            }
    return made


def _version_counters(state: dict[str, Any]) -> list[str]:
    """The ShapeEnv's version counters among its attributes: `_version_counter` (the env's
    caches) and, where torch has it, `_replacements_version_counter` (torch 2.13's
    SymNode.expr cache; torch 2.9's SymNode.expr recomputes every time and has none)."""
    return [
        k
        for k, v in state.items()
        if k.endswith("version_counter") and isinstance(v, int) and not isinstance(v, bool)
    ]


# ---------------------------------------------------------------------------------------
# The mirror


def _insertion_index(passes: list[Any], point: str, config: Any) -> int:
    """Where the extra SpecPropPass goes in `passes` for `point` (before that index)."""
    if point == "repeat":
        return next(i for i, p in enumerate(passes) if isinstance(p, P.SpecPropPass)) + 1
    if point == "after-asserts":
        return next(i for i, p in enumerate(passes) if isinstance(p, P.RemoveGraphAssertsPass)) + 1
    if point == "before-planning":
        return next(i for i, p in enumerate(passes) if p is config.sym_shape_eval_pass)
    raise ValueError(f"unknown insertion point {point!r}")


def _has_memory_views(gm: torch.fx.GraphModule) -> bool:
    return any(is_memory_view(n.target) for _, lvl in graph_levels(gm) for n in lvl.graph.nodes)


def _lowered(edge) -> tuple[Any, Any, torch.fx.GraphModule]:
    """What to_executorch does before its pass list, on a deep copy of `edge`:
    (program, the signature memory planning gets, the graph module the passes start on)."""
    edge = copy.deepcopy(edge)
    program = edge.exported_program()
    program = P.weights_to_outputs_pass(program)
    program = P.unsafe_remove_auto_functionalized_pass(program)
    _, signature = P.insert_write_back_for_buffers_pass(program)
    return program, signature, program.graph_module


def _run(passes: Sequence[Any], gm: torch.fx.GraphModule, program: Any) -> torch.fx.GraphModule:
    for p in passes:
        gm = p(gm).graph_module
        if isinstance(p, P.SpecPropPass):
            p.update_placeholder_tensor_specs(program, gm)
    return gm


def mirror_to_executorch(
    edge, insert: str | None = None, algo: str = "greedy"
) -> torch.fx.GraphModule:
    """The per-program loop of `to_executorch` with one extra `SpecPropPass` at `insert`
    (see the module docstring; None: none). Returns the planned graph module. What the
    run teaches the ShapeEnv that `edge` shares with its copies is undone afterwards."""
    with shape_envs_restored(shape_envs(edge.exported_program().graph_module)):
        config = ExecutorchBackendConfig()
        program, signature, gm = _lowered(edge)
        passes = executorch_passes(config, edge)
        if insert is not None:
            at = _insertion_index(passes, insert, config)
            passes.insert(at, P.SpecPropPass())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if insert is not None:
                gm = _run(passes[:at], gm, program)
                if insert == "before-planning" and _has_memory_views(gm):
                    raise NotApplicable("SpecPropPass cannot re-trace memory.view nodes")
                passes = passes[at:]
            gm = _run(passes, gm, program)
            memory_planning_pass(algo).run(gm, signature)
        return gm


def mirror_outcome(edge, point: str) -> Any:
    """`mirror_to_executorch(edge, point)`, or what it raised."""
    try:
        return mirror_to_executorch(edge, point)
    except Exception as e:
        return e


@dataclasses.dataclass
class MirrorRuns:
    """What `mirror_points` ran: per point the planned graph module, or what its run
    raised (`NotApplicable` included); the trunk planned with `trunk_algo` (None when not
    asked for or when it raised: `trunk_error`), with the graph signature the program
    of `to_executorch` has; and seconds spent ("trunk", "mirror[<point>]")."""

    variants: dict[str, Any] = dataclasses.field(default_factory=dict)
    trunk_algo: str | None = None
    trunk: torch.fx.GraphModule | None = None
    trunk_error: BaseException | None = None
    signature: Any = None
    timings: Counter = dataclasses.field(default_factory=Counter)


def mirror_points(edge, points: Sequence[str], trunk_algo: str | None = None) -> MirrorRuns:
    """`mirror_to_executorch(edge, point)` for every point, and the pipeline without an
    extra pass planned with `trunk_algo`, from one run of the passes (module docstring)."""
    envs = shape_envs(edge.exported_program().graph_module)
    with shape_envs_restored(envs), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _mirror_points(edge, tuple(points), trunk_algo, envs)


def _mirror_points(
    edge, points: tuple[str, ...], trunk_algo: str | None, envs: list[Any]
) -> MirrorRuns:
    runs, t = MirrorRuns(trunk_algo=trunk_algo), time.perf_counter()
    config = ExecutorchBackendConfig()
    program, signature, gm = _lowered(edge)
    runs.signature = program.graph_signature
    passes = executorch_passes(config, edge)
    at: dict[str, int] = {}
    for point in points:
        try:
            at[point] = _insertion_index(passes, point, config)
        except ValueError as e:
            runs.variants[point] = e
    for i in range(len(passes) + 1):
        for point in (p for p in points if at.get(p) == i):
            runs.timings["trunk"] += time.perf_counter() - t
            runs.variants[point] = _branch(edge, program, signature, gm, i, point, envs, runs)
            t = time.perf_counter()
        if i == len(passes):
            break
        try:
            gm = _run(passes[i : i + 1], gm, program)
        except Exception as e:  # the pipeline itself raised: so does every later point
            for point in (p for p in points if at.get(p, -1) > i):
                runs.variants[point] = e
            runs.trunk_error = e
            runs.timings["trunk"] += time.perf_counter() - t
            return runs
    if trunk_algo is not None:
        try:
            memory_planning_pass(trunk_algo).run(gm, signature)
            runs.trunk = gm
        except Exception as e:
            runs.trunk_error = e
    runs.timings["trunk"] += time.perf_counter() - t
    return runs


def _branch(
    edge,
    program: Any,
    signature: Any,
    gm: torch.fx.GraphModule,
    at: int,
    point: str,
    envs: list[Any],
    runs: MirrorRuns,
) -> Any:
    """The pipeline from pass `at` on with an extra SpecPropPass first, on the trunk's
    `gm` (left as it is), with fresh pass objects; the planned graph module, or what the
    run raised. The ShapeEnv is put back afterwards."""
    t = time.perf_counter()
    try:
        if point == "before-planning" and _has_memory_views(gm):
            return NotApplicable("SpecPropPass cannot re-trace memory.view nodes")
        with shape_envs_restored(envs):
            try:
                rest = executorch_passes(ExecutorchBackendConfig(), edge)[at:]
                out = _run([P.SpecPropPass(), *rest], gm, program)
                memory_planning_pass("greedy").run(out, signature)
                return out
            except Exception as e:
                return e
    finally:
        runs.timings[f"mirror[{point}]"] += time.perf_counter() - t
