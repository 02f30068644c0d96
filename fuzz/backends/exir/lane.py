"""The EXIR lane: torch.export -> to_edge -> to_executorch (memory planned) -> runtime.

`ExirLane.run` builds the program once (fuzz/backends/exir/pipeline.py) and runs a list
of named checks on the build (fuzz/backends/exir/checks.py), each through one guard:

  spec-meta          the probe's TensorSpecs against meta['val']          exir.spec-meta
  mapping            planned tensors -> the nodes whose values they hold  (counters)
  bound-loss         planned upper bounds against the declared ones       exir.bound-loss
  pipelines          the checks' own pipelines, from one run of to_executorch's passes:
                     the variance points' plans and the naive plan        (mirror.py)
  overlap            greedy and naive plans, Verifier and interval check  exir.overlap
  pipeline-variance  the plan with SpecPropPass re-run at three points    exir.pipeline-variance
  alias-structure    alias classes of the plan (S1-S5)                    exir.aliasing
  runtime-load       the .pte on the pip runtime                          exir.crash
  calls              per call inside the contract: under-allocation, alias boundary
                     (E1-E4), runtime result; where the runtime gives     exir.under-allocation,
                     none (no kernel), the edge program's result          exir.aliasing,
                     (edge_run.py)                                        exir.runtime-result,
                                                                          exir.edge-result
  contract-probes    inputs just outside the contract must be rejected    exir.unchecked-contract

When to_executorch raised, only spec-meta and bound-loss run (on the probe's snapshot),
then the error is judged: a lost bound, a skip, or exir.crash. Export refusals are skips
(`report.skipped`, counters["export-skip"]), as are programs the edge dialect or the
out-variant pass do not support (counters["unsupported-skip"]).

Inputs (fuzz/backends/exir/inputs.py): the program is exported for, interpreted on and
run with independent contiguous copies of each call's tensors, and judged against eager
on those same copies (the case runner's reference is reused where a call already is such a
copy; counters["reference-rerun"] counts the others). Which calls are inside the
exported contract is judged on the calls as given, with the case runner's reference: a call
whose overlapping inputs a mutating program writes through has no counterpart in the
exported program (fuzz/backends/exir/contract.py: `aliased_mutation`). The alias
boundary (E1-E4) compares the plan with eager storage sharing on the copies: the
program was exported for inputs that share nothing, so that is the sharing it must
reproduce, and inputs that do share are either left out as above or cannot change
what eager returns.

Number inputs: torch.export specializes a Python `int`/`float` argument to the
example's value. It stays a user input of the program (`graph_signature.user_inputs`)
and `ep.module()` guards it, so a call with another value is outside the contract
(counters["call-outside-contract"], with the reason in details["outside_contract"]),
never a runtime divergence. The runtime is fed what the method declares
(fuzz/backends/exir/runtime.py: the number too on executorch 1.5.1 and 1.0.1, which
check its value); executorch 1.0.1's binding cannot take a float at all
(counters["runtime-input-unsupported"]).

Version differences (the legacy lane runs executorch 1.0.1 on torch 2.9.1) are
feature-detected, not version-compared: the ShapeEnv's version counters and the
signature of `edge_to_executorch_passes` (mirror.py), the inputs the method declares
(runtime.py), and whether the planner aliases in-place results
(fuzz/backends/exir/oracles/aliasing.py: `planner_aliases_inplace_results`).

Timings (report.timings): the backend's own time is export, to_edge, to_executorch (the
build) and runtime (loading the .pte, running the calls and the contract probes on it);
the harness's own is checks (every check, the runtime's part left out), split into
check:<name> per named check and check:<name>/<part> for the parts worth watching (the
extra pipelines, the interpreters), and lane-inputs (the copies of the calls and the
eager re-runs on them). benchmarks/bench_lane.py prints them.

Planning and the runtime stay on the host; on CUDA only the case runner's reference ran on
the GPU (a call the lane runs again on its copies runs on the host).
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import torch

import fuzz.backends.exir.pipeline as pipeline
from fuzz.backends.base import LaneReport
from fuzz.backends.exir.checks import Calls, LaneRun, Settings
from fuzz.backends.exir.inputs import lane_inputs
from fuzz.backends.exir.oracles.overlap import short_lifetimes, views_exceeding_base
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.facts import announce, graph_ops, size_tags
from fuzz.observe import CallRecord

VARIANCE_POINTS = ("repeat", "after-asserts", "before-planning")
ALGOS = ("greedy", "naive")


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
        checks lower bounds). `runtime`: run the pip runtime where it has the kernels.
        `strict`: a check's own exception propagates instead of being counted (tests)."""
        self.settings = Settings(
            tuple(algos),
            tuple(variance_points),
            bound_factor,
            custom_bound_factor,
            check_lower_bounds,
            runtime,
            strict,
        )

    def unavailable(self, device: str) -> str | None:
        if device == "cpu":
            return None
        if device == "cuda":
            return None if torch.cuda.is_available() else "CUDA is not available"
        return f"unknown device {device!r}"

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        report = LaneReport(self.name, device)
        inputs = lane_inputs(case, calls, reference, report)
        host, eager, dims, example = inputs.host, inputs.eager, inputs.dims, inputs.example
        lane_calls = Calls(host, inputs.fed, list(reference), eager, case.program)
        try:
            b = pipeline.build(case.program, host[example], dims)
        except pipeline.ExportRefused as e:
            report.skipped = f"export refused: {e}"
            report.counters["export-skip"] += 1
            return report
        except pipeline.Unsupported as e:
            report.skipped = f"unsupported: {e}"
            report.counters["unsupported-skip"] += 1
            return report
        except pipeline.StageError as e:
            if eager and eager[example].error:
                report.skipped = (
                    f"{e.stage} raised on an example eager also rejects: {type(e.error).__name__}"
                )
                return report
            if e.program is not None:
                report.details["ops"] = graph_ops([e.program.graph_module])
                if e.stage == "to_edge":  # what it rejected may exist only once decomposed
                    report.details["ops"] = sorted(
                        {*report.details["ops"], *decomposed_ops(e.program)}
                    )
            what = pipeline.stage_error_text(e.error)
            report.divergences.append(
                Divergence("exir.crash", e.stage, what, device, {"error": what})
            )
            return report
        report.timings.update(b.timings)
        report.details["ops"] = graph_ops([b.edge.exported_program().graph_module])
        # The runtime may kill this process: say what it is about to run.
        announce({"ops": report.details["ops"], "sizes": size_tags(host), "during": "calls"})
        report.details["range_constraints"] = {
            str(k): str(v) for k, v in b.ep.range_constraints.items()
        }
        if b.specialized:  # dims the contract declares dynamic, made static by the lowering
            report.details["specialized"] = dict(b.specialized)
            if b.specialized_by:
                report.details["specialized_by"] = dict(b.specialized_by)
            if empty := b.specialized_empty:
                report.details["specialized_empty"] = empty
            report.counters["specialized-by-lowering"] += 1
        if b.et is not None and (views := views_exceeding_base(b.planned_gm)):
            report.details["views_exceeding_base"] = views  # fact `plan`
        if b.et is not None and (
            short := short_lifetimes(b.planned_gm, b.et_program.graph_signature)
        ):
            report.details["lifetimes_short"] = short  # fact `plan`
        if b.static_sizes:  # sizes computed from dynamic dims, made static by the lowering
            report.details["static_sizes"] = dict(b.static_sizes)
            report.counters["static-size-by-lowering"] += 1
        self.check_build(b, lane_calls, device, report)
        return report

    def check_build(
        self, b: pipeline.ExirBuild, calls: Calls, device: str, report: LaneReport
    ) -> None:
        """The named checks on one build, in order, each through the run's one guard."""
        t = time.perf_counter()
        run = LaneRun(self.settings, b, calls, device, report)
        if b.error is not None:
            checks = [
                ("spec-meta", run.spec_meta),
                ("mapping", run.probe_mapping),
                ("bound-loss", run.bounds),
                ("to_executorch", run.pipeline_error),
            ]
        else:
            checks = [
                ("spec-meta", run.spec_meta),
                ("mapping", run.mapping),
                ("bound-loss", run.bounds),
                ("pipelines", run.pipelines),
                ("overlap", run.overlap),
                ("emission", run.emission),
                ("pipeline-variance", run.variance),
                ("alias-structure", run.alias_structure),
                ("runtime-load", run.load_runtime),
                ("calls", run.each_call),
                ("contract-probes", run.contract_probes),
            ]
        try:
            for name, check in checks:
                t_check, runtime_before = time.perf_counter(), run.runtime_seconds
                run.guard(name, check)
                spent = time.perf_counter() - t_check - (run.runtime_seconds - runtime_before)
                report.timings[f"check:{name}"] += spent
        finally:
            run.close()
        report.timings["runtime"] += run.runtime_seconds
        report.timings["checks"] += time.perf_counter() - t - run.runtime_seconds


def decomposed_ops(ep: Any) -> list[str]:
    """The ops of `ep` once decomposed (`run_decompositions`, what to_edge verifies), for
    the facts of a to_edge crash: a replicate pad of a diagonal decomposes into indexing
    sized `torch.sym_min(s0, s2)`, the Python function the edge verifier rejects
    (corpus/executorch_sym_min_edge_verifier.py), which the exported program does not
    hold. Empty when decomposing raises too."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return graph_ops([copy.deepcopy(ep).run_decompositions().graph_module])
    except Exception:  # noqa: BLE001 - the crash is reported either way
        return []
