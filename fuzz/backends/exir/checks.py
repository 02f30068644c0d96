"""The EXIR lane's checks on one build: each gathers its facts and asks a judgement.

`LaneRun` holds one build and the calls, and one method per named check (the lane runs
them in order, fuzz/backends/exir/lane.py). A check gathers facts from the pipeline,
the ATen or edge interpreter and the runtime, passes them to the judgements in
fuzz/backends/exir/oracles/ (pure functions returning `Divergence` records), and files what they
return in the report. Facts one check leaves for a later one (the mapped planned
tensors, the checks' own pipelines, the loaded program) are attributes of the run.

Two kinds of exception, kept apart:
  * the stack under test raising is an observation, judged where it happens (the naive
    pipeline or the runtime load raising is exir.crash, a mirror pipeline raising is
    exir.pipeline-variance, a contract probe raising is the runtime rejecting it);
  * a check of the harness itself raising goes through `guard`, the one place that
    catches it: counted (`oracle-error`, details["oracle_errors"]), or raised when
    the lane is strict (tests).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import fuzz.backends.exir.contract as contract
import fuzz.backends.exir.mirror as mirror
import fuzz.backends.exir.pipeline as pipeline
from fuzz.backends.base import LaneReport
from fuzz.backends.exir.edge_run import run_edge
from fuzz.backends.exir.emulate import explained
from fuzz.backends.exir.graph import PlannedTensor
from fuzz.backends.exir.interpret import interpret
from fuzz.backends.exir.kinds import explains_runtime
from fuzz.backends.exir.mapping import map_planned, mapping_counts
from fuzz.backends.exir.oracles import aliasing as exir_aliasing
from fuzz.backends.exir.oracles import emission as exir_emission
from fuzz.backends.exir.oracles import overlap as exir_overlap
from fuzz.backends.exir.oracles import plan as exir_plan
from fuzz.backends.exir.oracles import variance as exir_variance
from fuzz.backends.exir.origin import locate
from fuzz.backends.exir.runtime import LoadedProgram, run_on_runtime, runtime_plan
from fuzz.backends.exir.runtime_origin import locate_runtime
from fuzz.divergence import Divergence
from fuzz.errors import error_text
from fuzz.facts import announce, facts_for, size_tags
from fuzz.native_stack import install as install_native_stack
from fuzz.observe import CallRecord
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args

# Divergences a lowering fault can cause, worth locating (fuzz.backends.exir.origin).
_LOCATED = {"exir.runtime-result", "exir.edge-result", "exir.under-allocation", "exir.crash"}
_RUNTIME_SYMPTOMS = {"exir.runtime-result", "exir.crash"}  # located in the runtime's own run


@dataclasses.dataclass(frozen=True)
class Settings:
    """The lane's knobs (see ExirLane)."""

    algos: tuple[str, ...]
    variance_points: tuple[str, ...]
    bound_factor: float
    custom_bound_factor: float
    check_lower_bounds: bool
    runtime: bool
    strict: bool

    def factor(self, pt: PlannedTensor) -> float:
        custom = exir_plan.is_custom_op(pt.target)
        return self.custom_bound_factor if custom else self.bound_factor


@dataclasses.dataclass
class Calls:
    """The calls of one case, as the lane uses them."""

    host: list[tuple]  # CPU copies of the case runner's calls, layout and aliasing as given
    fed: list[tuple]  # independent contiguous copies: exported for, interpreted, run
    reference: list[CallRecord]  # the case runner's eager reference, on the calls as given
    eager: list[CallRecord]  # eager on `fed`: what the program and the runtime must match
    program: Callable[..., Any] | None = None  # the case's own, for eager emulations


class LaneRun:
    def __init__(
        self,
        settings: Settings,
        build: pipeline.ExirBuild,
        calls: Calls,
        device: str,
        report: LaneReport,
    ):
        self.settings, self.b, self.calls = settings, build, calls
        self.device, self.report = device, report
        self.planned: list[PlannedTensor] = []
        self.edge_needed = False  # whether under-allocation needs the edge program's values
        self.loaded: LoadedProgram | None = None
        self.static_only = False  # the runtime lacks a kernel: the edge program's result
        self.mirrors: mirror.MirrorRuns | None = None  # the checks' own pipelines
        self.first_inside: tuple | None = None
        self.runtime_seconds = 0.0
        self.plan_announced = 0  # how many plan divergences the last announcement held

    # -- the one guard -----------------------------------------------------------------

    def guard(self, name: str, fn: Callable[[], Any], default: Any = None) -> Any:
        """`fn()`; when the harness's own check raises, count it and return `default`."""
        try:
            return fn()
        except Exception as e:
            if self.settings.strict:
                raise
            self.report.counters["oracle-error"] += 1
            self.report.details.setdefault("oracle_errors", []).append(
                f"{name}: {error_text(e, None)}"[:400]
            )
            return default

    def _file(self, found: Sequence[Divergence]) -> None:
        self.report.divergences.extend(found)

    def _timed_runtime(self, fn: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        try:
            return fn()
        finally:
            self.runtime_seconds += time.perf_counter() - t

    @contextlib.contextmanager
    def _timed(self, part: str) -> Iterator[None]:
        """Time one part of a check: report.timings["check:<name>/<part>"]."""
        t = time.perf_counter()
        try:
            yield
        finally:
            self.report.timings[f"check:{part}"] += time.perf_counter() - t

    # -- the plan ----------------------------------------------------------------------

    def spec_meta(self) -> None:
        """exir.spec-meta on the probe's snapshot (taken before the sym-shape pass)."""
        if self.b.probe is not None and self.b.probe.records is not None:
            self._file(exir_plan.check_spec_meta(self.b.probe.records, self.device))

    def mapping(self) -> None:
        """Planned tensors -> reference nodes; counts what the plan oracles can check."""
        gm = self.b.planned_gm
        self.report.details["arena"] = list(gm.meta.get("non_const_buffer_sizes", []))
        edge_gm = self.b.edge.exported_program().graph_module
        self.planned = map_planned(gm, self.b.ep.graph_module, edge_gm)
        self.report.details["mapping"] = dict(Counter(p.how.split(":")[0] for p in self.planned))
        counts, why = mapping_counts(self.planned)
        self.edge_needed = any(  # a planned buffer whose value only the edge program has
            pt.aten_node is None and pt.edge_node is not None and not pt.spec.const
            for pt in self.planned
        )
        self.report.counters.update(counts)
        self.report.details["unmapped"] = dict(why)

    def probe_mapping(self) -> None:
        """The mapping of the probe's graph, when to_executorch raised after the probe."""
        if self.b.probe is not None and self.b.probe.gm is not None:
            self.planned = map_planned(self.b.probe.gm, self.b.ep.graph_module)

    def bounds(self) -> None:
        """exir.bound-loss (planned bounds against the declared ones)."""
        probe = self.b.probe
        lost, table = exir_plan.check_bounds(
            self.planned,
            self.b.ep,
            self.settings.factor,
            probe.bounds if probe is not None else None,
            self.device,
        )
        self.report.details["bounds"] = table
        self._file(lost)

    def pipeline_error(self) -> None:
        """to_executorch raised. A lost bound (the sym-shape pass found int_oo where the
        program declares a finite bound) was exir.bound-loss (judged from the probe's
        snapshot by `bounds`). An error that names a missing bound is a skip only with
        proof: a tensor of the ATen program with a size of no finite upper bound under
        the ranges it declares (details["unbounded"]). Anything else is exir.crash."""
        error, report = self.b.error, self.report
        lost = any(d.kind == "exir.bound-loss" for d in report.divergences)
        if pipeline.is_bound_error(error) and lost:
            return
        if pipeline.skip_unbounded(report, self.b.ep, error):
            return
        what = pipeline.stage_error_text(error)
        self._file([Divergence("exir.crash", "to_executorch", what, self.device, {"error": what})])

    def pipelines(self) -> None:
        """The variance points' plans and the naive plan (the first algorithm other than
        greedy), from one run of to_executorch's passes (mirror.py: `mirror_points`)."""
        algo = next((a for a in self.settings.algos if a != "greedy"), None)
        if self.settings.variance_points or algo is not None:
            self.mirrors = mirror.mirror_points(self.b.edge, self.settings.variance_points, algo)
            for part, seconds in self.mirrors.timings.items():
                self.report.timings[f"check:pipelines/{part}"] += seconds

    def overlap(self) -> None:
        """exir.overlap for each planning algorithm (greedy: the build's own plan; naive:
        the mirror's trunk, to_executorch's passes planned naive, not emitted)."""
        for algo in self.settings.algos:
            if algo == "greedy":
                gm, signature = self.b.planned_gm, self.b.et_program.graph_signature
            else:
                try:
                    gm, signature = self._other_plan(algo)
                except Exception as e:
                    if "does not support storage-backed" in str(e):
                        self.report.counters[f"{algo}-unsupported"] += 1
                        continue
                    what = error_text(e)
                    stage = f"to_executorch[{algo}]"
                    self._file(
                        [Divergence("exir.crash", stage, what, self.device, {"error": what})]
                    )
                    continue
            self._file(exir_overlap.check_overlap(gm, signature, algo, self.device))

    def emission(self) -> None:
        """exir.emission: the emitted program's size lists against the planned graph."""
        found, unpaired = exir_emission.check_int_lists(
            self.b.et.executorch_program, self.b.planned_gm, self.device
        )
        if unpaired is not None:
            self.report.counters["emission-unpaired"] += 1
            self.report.details["emission_unpaired"] = unpaired
        self._file(found)

    def _other_plan(self, algo: str) -> tuple[Any, Any]:
        """(graph module, signature) planned with `algo`; raises what the pipeline raised."""
        runs = self.mirrors
        if runs is not None and algo == runs.trunk_algo:
            if runs.trunk_error is not None:
                raise runs.trunk_error
            return runs.trunk, runs.signature
        with self._timed(f"overlap/to_executorch[{algo}]"):
            prog = pipeline.to_executorch(self.b.edge, algo).exported_program()
        return prog.graph_module, prog.graph_signature

    def variance(self) -> None:
        """exir.pipeline-variance for each SpecPropPass insertion point."""
        base = exir_variance.plan_fingerprint(self.b.planned_gm)
        runs = self.mirrors
        for point in self.settings.variance_points:
            if runs is not None:
                variant = runs.variants[point]
            else:  # the shared run did not run (its oracle error is counted): one alone
                with self._timed(f"pipeline-variance/mirror[{point}]"):
                    variant = mirror.mirror_outcome(self.b.edge, point)
            if isinstance(variant, mirror.NotApplicable):
                self.report.counters[f"variance-{point}-n/a"] += 1
                continue
            if isinstance(variant, BaseException):
                error = error_text(variant, 300)
                what = f"re-running SpecPropPass {point} makes the pipeline raise {error}"
                stage, data = f"pipeline-variance[{point}]", {"point": point, "error": error}
                self._file([Divergence("exir.pipeline-variance", stage, what, self.device, data)])
                continue
            variant_rows = exir_variance.plan_fingerprint(variant)
            self._file(exir_variance.compare_plans(base, variant_rows, point, self.device))

    def alias_structure(self) -> None:
        """exir.aliasing inside the program (S1-S5 on the greedy plan)."""
        found, notes = exir_aliasing.check_alias_structure(self.b.planned_gm, self.device)
        self._file(found)
        self.report.details["alias_notes"] = notes

    # -- the calls ---------------------------------------------------------------------

    def load_runtime(self) -> None:
        """Load the .pte on the pip runtime, unless it lacks kernels (static checks only)."""
        detail, counters = runtime_plan(self.b.planned_gm, self.settings.runtime)
        self.report.details["runtime"] = detail
        self.report.counters.update(counters)
        if "runtime-static-only" in counters:
            self.static_only = True
            return
        # A kernel that kills the process leaves its name on the native stack (fuzz.
        # native_stack); without a C compiler a death names no kernel: counted.
        if install_native_stack():
            self.report.counters["native-stack-unavailable"] += 1
        try:
            self.loaded = self._timed_runtime(lambda: LoadedProgram(self.b.buffer))
        except Exception as e:
            self._file([Divergence("exir.crash", "runtime-load", error_text(e), self.device)])

    def each_call(self) -> None:
        """Per call inside the contract: under-allocation, alias boundary, runtime result.
        Calls outside the contract (or with overlapping inputs of a mutating program) are
        counted and left out."""
        et_program, calls = self.b.et_program, self.calls
        facts = self.guard("alias-boundary", lambda: exir_aliasing.boundary_facts(et_program))
        legal: Counter = Counter()
        for i, (host, fed, ref, eager) in enumerate(
            zip(calls.host, calls.fed, calls.reference, calls.eager)
        ):
            stage = f"call[{i}]"
            with self._timed("calls/contract"):
                why = self.guard(
                    "contract",
                    lambda: (
                        contract.outside_contract(self.b.ep, host)
                        or contract.aliased_mutation(et_program, host, ref)
                    ),
                    "the contract check failed",
                )
            if why is not None:
                self.report.counters["call-outside-contract"] += 1
                self.report.counters[f"call-outside-contract:{contract.reason_kind(why)}"] += 1
                self.report.details.setdefault("outside_contract", []).append(f"{stage}: {why}")
                continue
            self.first_inside = fed if self.first_inside is None else self.first_inside
            before = len(self.report.divergences)
            self.report.counters["calls-checked"] += 1
            self.report.details.setdefault("checked_calls", []).append(i)
            if not eager.error:
                self.guard("under-allocation", lambda: self._under_allocation(fed, stage))
            if facts is not None:
                legal.update(
                    self.guard(
                        "alias-boundary",
                        lambda: self._alias_boundary(facts, eager, fed, stage),
                        {},
                    )
                )
            if self.loaded is not None:
                self.guard("announce", self._announce_plan)
            if self.loaded is not None or self.static_only:
                self.guard("result", lambda: self._result(fed, eager, stage))
            located = [d.kind for d in self.report.divergences[before:] if d.kind in _LOCATED]
            if located:
                self._locate(i, fed)
                if self.loaded is not None and set(located) & _RUNTIME_SYMPTOMS:
                    self._locate_runtime(i, fed)
        self.report.details["legal_aliasing"] = dict(legal)

    def _announce_plan(self) -> None:
        """Say which plan divergences the program has before the runtime runs a call (again
        when a call added one): a process the runtime kills reports nothing, and its death
        is theirs (fuzz/campaign/causes.py, rule (g); fuzz.campaign.triage reads them)."""
        plan = [d for d in self.report.divergences if explains_runtime(d.kind, d.details)]
        if len(plan) == self.plan_announced:
            return
        self.plan_announced = len(plan)
        host, details = self.calls.host, self.report.details
        announce(
            {
                "ops": details.get("ops", []),
                "sizes": size_tags(host),
                "during": "calls",
                "plan_divergences": [
                    d.to_json() | {"data": d.data | {"facts": facts_for(d, host, details)}}
                    for d in plan
                ],
            }
        )

    def _locate(self, index: int, fed: tuple) -> None:
        with self._timed("calls/origin"):
            locate(self.report, index, self.b.ep, self.b.edge.exported_program(), fed)

    def _locate_runtime(self, index: int, fed: tuple) -> None:
        """Where the runtime departs, when the edge program does not (a fault below it)."""
        if index in self.report.details.get("origin_by_call", {}):
            return
        edge_ep, flat = self.b.edge.exported_program(), self.loaded.inputs(fed)
        with self._timed("calls/runtime-origin"):
            locate_runtime(self.report, index, edge_ep, self.b.et, flat, fed)

    def _under_allocation(self, fed: tuple, stage: str) -> None:
        """exir.under-allocation: each planned buffer against its reference's value."""
        report = self.report
        try:
            with self._timed("calls/aten-interpret"):
                values = interpret(self.b.ep, copy_args(fed))
        except Exception as e:  # e.g. a runtime assert of the ATen program: counted, not judged
            report.counters["aten-interpret-error"] += 1
            report.details.setdefault("aten_interpret_errors", []).append(
                f"{stage}: {error_text(e, 200)}"
            )
            return
        edge_values = None
        if self.edge_needed:
            try:
                with self._timed("calls/edge-interpret"):
                    edge_values = interpret(self.b.edge.exported_program(), copy_args(fed))
            except Exception as e:  # edge-mapped tensors are then not reached
                report.counters["edge-interpret-error"] += 1
                report.details.setdefault("edge_interpret_errors", []).append(
                    f"{stage}: {error_text(e, 200)}"
                )
        under, stats = exir_plan.check_under_allocation(
            self.planned, values, stage, self.device, edge_values
        )
        for k, v in stats.items():
            report.counters[f"tensors-{k}"] += v
        self._file(under)

    def _alias_boundary(
        self, facts: dict[str, Any], eager: CallRecord, fed: tuple, stage: str
    ) -> dict[str, int]:
        found, legal = exir_aliasing.check_alias_boundary(facts, eager, fed, stage, self.device)
        self._file(found)
        return legal

    def _result(self, fed: tuple, eager: CallRecord, stage: str) -> None:
        """The runtime against eager on the same inputs (exir.runtime-result, exir.crash);
        where the runtime gives no result, the edge program (exir.edge-result, edge_run.py)."""
        lane, got = "exir", None
        if self.loaded is not None:
            got = self._timed_runtime(lambda: run_on_runtime(self.loaded, self.b.et_program, fed))
            if got is None:  # the binding cannot take a number input (executorch 1.0.1: floats)
                self.report.counters["runtime-input-unsupported"] += 1
        if got is None:
            with self._timed("calls/edge-result"):
                lane, got = "exir-edge", run_edge(self.b.edge.exported_program(), fed)
            self.report.counters["calls-edge-result"] += 1
        found = compare_results(lane, eager, got, stage, self.device, check_inputs=True)
        self._file(explained(found, self.report, self.b.ep, fed, got, stage, self.calls.program))

    def contract_probes(self) -> None:
        """exir.unchecked-contract: inputs just outside range_constraints, or inside them
        but failing an export guard, must be rejected by the runtime."""
        if self.loaded is None or self.first_inside is None:
            return
        results, report = [], self.report
        with self._timed("contract-probes/make"):
            probes = contract.contract_probes(self.b.ep, self.first_inside)
        for probe in probes:
            contract.announce_probe(report.details.get("ops") or (), probe)
            accepted = self._timed_runtime(lambda: self.loaded.accepts(probe.args))
            results.append({"probe": probe.name, "kind": probe.kind, "accepted": accepted})
            report.counters[f"contract-{probe.kind}-{'accepted' if accepted else 'rejected'}"] += 1
            if accepted and (probe.kind != "lower" or self.settings.check_lower_bounds):
                outside = "export guards" if probe.kind == "guard" else "exported range_constraints"
                what = f"the runtime accepted {probe.name}, outside the {outside}"
                stage, data = f"contract[{probe.kind}]", {"probe": probe.name, "kind": probe.kind}
                self._file([Divergence("exir.unchecked-contract", stage, what, self.device, data)])
        report.details["contract_probes"] = results

    def close(self) -> None:
        if self.loaded is not None:
            self.loaded.close()  # the Method goes before its Program
            self.loaded = None
