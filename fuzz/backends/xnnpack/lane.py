"""XnnpackLane: a case's program lowered with the XNNPACK partitioner, run on the pip
runtime over the case's calls.

The pipeline is the one ExecuTorch's CPU users run:

    ep = torch.export.export(module, example, dynamic_shapes=...)
    et = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()

Export, the dynamic shapes and the contract are the EXIR lane's (fuzz/backends/exir/
pipeline.py, contract.py, inputs.py), so one case means the same program and the same
calls on both lanes; the lowering and `to_executorch` are stock (no spec probe, no plan of
ours). Every call inside the exported contract runs on the delegated program: the case's
calls vary the dynamic sizes inside their bounds, which is where XNNPACK's resizing lives
(a program checked only at the upper bound hides it).

Oracles: the outputs and the mutated inputs against eager (fuzz.oracles.results, the same
tolerances and float64 referee as the other lanes); the lowering or the runtime raising
where eager did not is `xnnpack.crash` (at `to_edge` when the edge conversion inside
`to_edge_transform_and_lower` raised, at `to_edge_transform_and_lower` when partitioning
or lowering did, at `to_executorch`, `runtime-load` or the call). A program with an
operator the runtime has no kernel for is a counted skip (`runtime-kernel-missing`); our
`fuzz::` kernels are loaded first, as on the EXIR lane. Refusals are skips, as on the EXIR lane:
export refusing the program, operators outside the edge dialect, missing out variants,
and (with the EXIR lane's proof: details["unbounded"]) a size of no finite upper bound
that `to_executorch` cannot plan.

A wrong result gets the EXIR lane's fact "matches_eager_with" (fuzz/backends/exir/
emulate.py): the kernel semantics under which eager computes what the delegate did.

Facts: facts "ops" holds the ops left to the portable kernels as the EXIR lane names them,
and each op a delegate took as `xnnpack:<op>` (the lowered modules' own graphs);
details["partitions"] is the number of delegate calls.

The memory plan of the part the delegate does not take (to_executorch's greedy plan of the
top-level graph, delegate inputs and outputs included) is checked as on the EXIR lane:
ExecuTorch's Verifier and the harness's own lifetimes (fuzz/backends/exir/oracles/
overlap.py), as `xnnpack.overlap`. Not checked here: the planned bounds (the EXIR lane's
bound oracles read its own pipeline's spec probe) and contracts the runtime stops
checking.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
import warnings
from typing import Any, ClassVar

import torch

import fuzz.backends.exir.contract as contract
import fuzz.backends.exir.pipeline as pipeline
from fuzz.backends.base import LaneReport
from fuzz.backends.exir.emulate import explained
from fuzz.backends.exir.graph import static_sizes
from fuzz.backends.exir.inputs import lane_inputs
from fuzz.backends.exir.oracles.overlap import check_overlap
from fuzz.backends.exir.runtime import LoadedProgram, missing_kernels, run_on_runtime
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.facts import announce, graph_ops, size_tags
from fuzz.native_stack import install as install_native_stack
from fuzz.observe import CallRecord
from fuzz.oracles.results import compare_results

LOWER = "to_edge_transform_and_lower"


class XnnpackLane:
    name: ClassVar[str] = "xnnpack"

    def unavailable(self, device: str) -> str | None:
        if device == "cpu":
            return None
        return "the XNNPACK delegate runs on the CPU" if device == "cuda" else f"device {device!r}"

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        report = LaneReport(self.name, device)
        inputs = lane_inputs(case, calls, reference, report)
        host, eager = inputs.host, inputs.eager
        dims, example = inputs.dims, inputs.example

        t = time.perf_counter()
        try:
            ep = pipeline.export_program(case.program, host[example], dims)
        except Exception as e:
            if pipeline.is_export_refusal(e):
                report.skipped = f"export refused: {type(e).__name__}"
                report.counters["export-skip"] += 1
            elif eager[example].error:
                report.skipped = f"export raised on an example eager also rejects: {e!r}"[:300]
            else:
                self._crash(report, "export", e, device)
            return report
        report.timings["export"] += time.perf_counter() - t
        contract.freeze(ep)

        t = time.perf_counter()
        try:
            edge, lowered = lower_with_xnnpack(ep, report)
        except pipeline.Unsupported as e:
            report.skipped = f"unsupported: {e}"
            report.counters["unsupported-skip"] += 1
            return report
        except Exception as e:
            report.details["ops"] = graph_ops([ep.graph_module])
            self._crash(report, lowering_stage(e), e, device)
            return report
        report.timings[LOWER] += time.perf_counter() - t
        delegated_facts(edge.exported_program(), report)

        t = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                et = edge.to_executorch()
        except Exception as e:
            if pipeline.is_unsupported(e):
                report.skipped = f"unsupported: to_executorch: {str(e).strip()[:300]}"
                report.counters["unsupported-skip"] += 1
            # a size the program gives no finite bound cannot be planned: a skip only
            # with that proof, as on the EXIR lane
            elif not pipeline.skip_unbounded(report, ep, e):
                self._crash(report, "to_executorch", e, device)
            return report
        report.timings["to_executorch"] += time.perf_counter() - t
        note_specialized(lowered, "to_executorch", report)
        planned = et.exported_program()
        report.divergences.extend(
            dataclasses.replace(d, kind="xnnpack.overlap")
            for d in check_overlap(planned.graph_module, planned.graph_signature, "greedy", device)
        )

        # Our fuzz:: kernels are loaded here, as on the EXIR lane; an operator the runtime
        # has no kernel for fails the load (OperatorMissing): a skip, not the stack's crash.
        missing = missing_kernels(et.exported_program().graph_module)
        if missing:
            report.skipped = f"no runtime kernel for {missing}"
            report.counters["runtime-kernel-missing"] += 1
            return report
        if install_native_stack():
            report.counters["native-stack-unavailable"] += 1
        announce({"ops": report.details["ops"], "sizes": size_tags(host), "during": "calls"})
        t = time.perf_counter()
        try:
            loaded = LoadedProgram(et.buffer)
        except Exception as e:
            self._crash(report, "runtime-load", e, device)
            return report
        try:
            self._calls(case, ep, et.exported_program(), loaded, inputs, device, report)
        finally:
            loaded.close()
        report.timings["runtime"] += time.perf_counter() - t
        return report

    def _calls(self, case, ep, et_program, loaded, inputs, device, report) -> None:
        """Each call inside the contract on the delegated program, against eager
        (`inputs`: the lane's LaneInputs)."""
        calls = zip(inputs.host, inputs.fed, inputs.eager)
        for i, (args, copies, expected) in enumerate(calls):
            why = contract.outside_contract(ep, args) or contract.aliased_mutation(
                et_program, args, expected
            )
            if why is not None:
                report.counters["call-outside-contract"] += 1
                report.details.setdefault("outside_contract", []).append(f"call[{i}]: {why}")
                continue
            report.counters["calls-checked"] += 1
            got = run_on_runtime(loaded, et_program, copies)
            if got is None:
                report.counters["runtime-input-unsupported"] += 1
                continue
            stage = f"call[{i}]"
            found = compare_results(self.name, expected, got, stage, device, check_inputs=True)
            # what a wrong result equals (fuzz.facts "matches_eager_with"), as on EXIR: the
            # case's program for the eager emulations (an eval dropout that copies)
            report.divergences.extend(explained(found, report, ep, args, got, stage, case.program))

    @staticmethod
    def _crash(report: LaneReport, stage: str, e: BaseException, device: str) -> None:
        what = pipeline.stage_error_text(e)
        report.divergences.append(Divergence("xnnpack.crash", stage, what, device, {"error": what}))


def lower_with_xnnpack(ep: torch.export.ExportedProgram, report: LaneReport) -> Any:
    """`to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])` on a copy
    (returned with the edge program manager: to_executorch guards in its ShapeEnv),
    with the EXIR lane's retry past operators outside Core ATen (pipeline.lower_to_edge:
    the error's own advice, `_core_aten_ops_exception_list`); raises pipeline.Unsupported
    where the edge dialect refuses an operator otherwise. What the edge conversion made
    static is recorded as on the EXIR lane (details "specialized", "static_sizes": facts
    "specialized"), so the EXIR lane's patterns of that bug apply."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    lowered: list[torch.export.ExportedProgram] = []

    def convert(program: torch.export.ExportedProgram, config: Any) -> Any:
        contract.freeze(program)  # the copy's ShapeEnv is the one the lowering guards on
        lowered.append(program)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return to_edge_transform_and_lower(
                program, partitioner=[XnnpackPartitioner()], compile_config=config
            )

    edge = pipeline.lower_to_edge(ep, convert=convert)
    note_specialized(lowered[-1], "to_edge", report)
    if static := static_sizes(edge.exported_program().graph_module):
        report.details["static_sizes"] = {k: f"to_edge:{op}" for k, op in static.items()}
    return edge, lowered[-1]


def note_specialized(program: torch.export.ExportedProgram, stage: str, report: LaneReport):
    """contract.note_specialized into details "specialized" and "specialized_by", as on
    EXIR; neither detail is written while no dim was specialized."""
    seen, by = report.details.get("specialized", {}), report.details.get("specialized_by", {})
    contract.note_specialized(program, stage, seen, by)
    for key, value in (("specialized", seen), ("specialized_by", by)):
        if value:
            report.details[key] = value


def lowering_stage(e: BaseException) -> str:
    """Where in `to_edge_transform_and_lower` `e` was raised: "to_edge" inside the edge
    conversion it shares with `to_edge` (ExecuTorch's `_generate_edge_program`, before any
    partitioner runs), else the lowering itself."""
    frames = traceback.extract_tb(e.__traceback__)
    return "to_edge" if any(f.name == "_generate_edge_program" for f in frames) else LOWER


def delegated_facts(edge_ep: torch.export.ExportedProgram, report: LaneReport) -> None:
    """facts "ops": the top-level graph's ops, and each lowered module's as `xnnpack:<op>`;
    details["partitions"]: how many delegate calls the program makes."""
    gm = edge_ep.graph_module
    top = graph_ops([gm])
    delegated: set[str] = set()
    partitions = 0
    for node in gm.graph.nodes:
        if node.op == "get_attr" and node.target.startswith("lowered_module"):
            partitions += 1
            lowered = getattr(gm, node.target)
            original = getattr(lowered, "original_module", None)
            if original is not None:
                delegated.update(op for op in graph_ops([original.graph_module]) if ":" not in op)
    report.details["ops"] = sorted(top + [f"xnnpack:{op}" for op in delegated])
    report.details["partitions"] = partitions
    report.counters["delegated-programs"] += int(partitions > 0)
