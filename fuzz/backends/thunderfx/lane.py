"""ThunderFXLane: a case's program under `torch.compile(..., backend=ThunderCompiler(),
dynamic=True)`, fed the whole call sequence in order, checked call by call against eager.

That is what `thunder.dynamo.thunderfx(program, dynamic=True)` builds: Dynamo captures
graphs and guards them, ThunderFX splits each graph into the parts Thunder supports (run
by `thunder.jit`, with the harness's custom ops registered as on the Thunder lane) and the
rest (compiled by Inductor). The program runs as a private copy of its code object, so
Dynamo's cache, which lives on the code object, starts empty and no other run shares it.

Per call: results and aliasing against eager (fuzz.oracles, the tolerances of the other
lanes). Whether the call compiled a graph or reused one is read from the backend: a call
after which no new graph was compiled reused Dynamo's cache. A reused call that diverges
from eager is compiled once more from scratch (a new private copy, a new backend); when
that fresh compile agrees with eager, the divergence is the cache's: `thunderfx.
unsound-hit`, one per call, its details the reused graph's divergence. A reused call that
raises an error an earlier call raised is not checked so: the graph fails the same way on
every call (a fresh compile in this process need not, as Dynamo keeps state per process:
a campaign's first "unsound hit" was a registered crash that way). Checking only the
reused calls that diverge costs nothing on the others; a hit that is unsound but happens
to compute the right values is not caught (the Thunder lane's trace comparison would).

Counted, not divergences: `compiled` and `reused` calls; `recompiles` (a call after the
first that compiled); `missed-graph-reuse` (a recompile whose Dynamo graph is, as code,
one compiled before: a guard that failed where the graph would have served);
`graph-breaks` (graphs compiled beyond one per compiling call). Details: "ops" (the ops
of every graph Dynamo captured; ops of a part ThunderFX gave to Inductor are tagged
`inductor:`), "graphs" (how many), "split_reasons" (ThunderFX's words for each split).

Errors that say Thunder or Dynamo does not support something are counted skips
(`fuzz.backends.thunder.lane.refused`). Dynamo's state is reset after each program, so
nothing a program compiled outlives its run.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
import types
import warnings
from typing import Any, ClassVar

import torch

from fixes.compat_thunderfx_lazy_submodules import SHIM
from fuzz.backends.base import LaneReport
from fuzz.backends.thunder.lane import _executors, _thunder, refused
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.observe import CallRecord, observe_call
from fuzz.oracles.aliasing import compare_aliasing
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args

_copies = itertools.count()


def private_copy(fn: types.FunctionType) -> types.FunctionType:
    """`fn` with a code object of its own, different in value (its name), so that Dynamo
    shares no cache entry and no resume function with any other copy."""
    code = fn.__code__.replace(co_name=f"{fn.__code__.co_name}__fx{next(_copies)}")
    copy = types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def _op_name(node: torch.fx.Node) -> str:
    target = node.target
    if node.op == "call_method":
        return str(target)
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return str(target)
    return getattr(target, "__name__", str(target))


def _graph_ops(gm: torch.fx.GraphModule, tag: str = "") -> set[str]:
    return {tag + _op_name(n) for n in gm.graph.nodes if n.op in ("call_function", "call_method")}


class Compiled:
    """One `torch.compile(copy of program, backend=ThunderCompiler(...), dynamic=True)`
    and the Dynamo graphs its backend was given, in order (their code, for reuse)."""

    def __init__(self, program, thunder):
        from thunder.dynamo import ThunderCompiler

        graphs = self.graphs = []

        class Recording(ThunderCompiler):
            def __call__(self, gm, sample_args):
                graphs.append(gm)
                return super().__call__(gm, sample_args)

        self.backend = Recording(executors=_executors(thunder))
        self.fn = torch.compile(private_copy(program), backend=self.backend, dynamic=True)

    def __call__(self, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.fn(*args)

    def ops(self) -> list[str]:
        """The ops of every captured graph; those of a part given to Inductor tagged."""
        from thunder.dynamo.utils import CompilerType

        ops: set[str] = set()
        for info in self.backend.subgraph_infos:
            parts = info.submodule_to_compiled_functions
            if not parts:
                ops |= _graph_ops(info.original_graph_module)
            for submodule, compiled in parts.items():
                inductor = compiled.compiler == CompilerType.TORCH_INDUCTOR
                ops |= _graph_ops(submodule, "inductor:" if inductor else "")
        return sorted(ops)

    def split_reasons(self) -> list[str]:
        return [
            f"{r.reason_type.name}: {r.info}"
            for info in self.backend.subgraph_infos
            for r in info.split_reasons or ()
        ]


class ThunderFXLane:
    name: ClassVar[str] = "thunderfx"

    def unavailable(self, device: str) -> str | None:
        if device == "cuda" and not torch.cuda.is_available():
            return "no CUDA device"
        return None

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        thunder = _thunder()
        SHIM.install()  # fixes/compat_thunderfx_lazy_submodules.py: recorded, not switchable
        report = LaneReport(self.name, device)
        report.counters["calls-checked"] += 0  # a program whose every call raised: 0
        checked = report.details.setdefault("checked_calls", [])
        t = report.timings
        compiled = Compiled(case.program, thunder)
        codes: list[str] = []  # the code of each graph compiled so far
        raised: set[str] = set()  # the errors earlier calls raised
        try:
            for i, (args, expected) in enumerate(zip(calls, reference)):
                stage = f"call[{i}]"
                before = len(compiled.graphs)
                start = time.perf_counter()
                record = observe_call(compiled, copy_args(args))
                t["compile+calls"] += time.perf_counter() - start
                if record.error and not expected.error and refused(record.error):
                    report.skipped = f"unsupported by thunderfx: {record.error[:200]}"
                    report.counters["unsupported"] += 1
                    break
                new = [gm.code for gm in compiled.graphs[before:]]
                reused = bool(codes) and not new
                self._count(report, i, reused, new, codes)
                codes += new
                start = time.perf_counter()
                found = self._compare(expected, record, stage, device)
                # A reused graph that raises what an earlier call raised fails the same way
                # every time (its first run raised too): a crash, not the cache's.
                if found and reused and record.error not in raised:
                    found = self._unsound_hit(case, thunder, args, expected, stage, device, found)
                if record.error:
                    raised.add(record.error)
                t["oracles"] += time.perf_counter() - start
                report.divergences += [
                    dataclasses.replace(d, data=d.data | {"cache_hit": reused}) for d in found
                ]
                if record.error is None:
                    report.counters["calls-checked"] += 1
                    checked.append(i)
            report.details["graphs"] = len(compiled.graphs)
            report.details["ops"] = compiled.ops()
            report.details["split_reasons"] = compiled.split_reasons()
        finally:
            torch._dynamo.reset()
        return report

    @staticmethod
    def _count(report: LaneReport, i: int, reused: bool, new: list[str], codes: list[str]):
        c = report.counters
        c["reused" if reused else "compiled"] += 1
        if new:
            c["graph-breaks"] += len(new) - 1
        if new and i > 0:
            c["recompiles"] += 1
            if any(code in codes for code in new):
                c["missed-graph-reuse"] += 1

    def _compare(self, expected: CallRecord, record: CallRecord, stage: str, device: str):
        return compare_results(self.name, expected, record, stage, device) + compare_aliasing(
            self.name, expected, record, stage, device
        )

    def _unsound_hit(
        self, case, thunder, args, expected, stage, device, found: list[Divergence]
    ) -> list[Divergence]:
        """`found` (a reused call's divergences), or one unsound hit when a fresh compile of
        the same call agrees with eager."""
        fresh = observe_call(Compiled(case.program, thunder), copy_args(args))
        if self._compare(expected, fresh, stage, device):
            return found  # a fresh compile is wrong too: not the cache's doing
        what = "; ".join(f"{d.kind}: {d.details}" for d in found)
        return [
            Divergence(
                "thunderfx.unsound-hit",
                stage,
                f"a call that reused a compiled graph diverged ({what}); a fresh compile of "
                "the same call agrees with eager",
                device,
                data=_merged_data(found),
            )
        ]


def _merged_data(found: list[Divergence]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for d in found:
        data |= d.data
    return data
