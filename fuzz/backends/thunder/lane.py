"""The Thunder lane: one `thunder.jit(fn, cache="symbolic values")` object fed the whole
call sequence in order, checked call by call against eager.

Per call: results and aliasing (fuzz.oracles), then, on a cache hit, the traces it ran
(initial computation and final execution trace) against fresh traces of the same call
(unsound hit; a fresh jit that raises on a call the cache served is one too), and on a miss
after the first call, whether an existing entry had the same trace (a missed legal hit,
counted, not a divergence).

Fresh traces are made once per *call signature* and reused: a trace is deterministic for
the same program and the same input metadata Thunder sees (shapes, dtypes, devices,
requires_grad, which inputs share storage; not strides: `call_signature`) and number
inputs (type and value). The traces a miss made
are fresh traces of its signature already, so a hit whose signature equals an earlier
miss's is checked without jitting anything (`counters["fresh-trace-reused"]`).

The default-cache control is the lane's `annotate` step, which the case runner runs only for
divergences the corpus does not know, after confirming them: the same sequence under the
default cache, and each divergence says whether the control diverged too ("diverges too":
not a cache bug; "agrees with eager": cache-specific).

Counters: calls-checked (calls Thunder returned from, compared with eager; their indices
in details["checked_calls"]). An exception of the lane's own oracles (compare_results,
compare_aliasing, unsound_hit) is not caught here: it leaves `run` and the campaign
records it as a harness error (exit 2), so it cannot go unseen.
"""

from __future__ import annotations

import dataclasses
import re
import time
import traceback
import warnings
from collections import Counter

import torch

import fixes
import fuzz.custom_ops
from fixes.compat_thunder_named_tensor import import_thunder
from fuzz import speedups
from fuzz.backends.base import LaneReport
from fuzz.backends.thunder.oracles.cache import (
    matches_any,
    unsound_hit,
    unsound_hit_without_fresh_trace,
)
from fuzz.backends.thunder.origin import annotate_origins, line_op
from fuzz.backends.thunder.repairs import REPAIRS, repaired
from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.observe import CallRecord, observe_call
from fuzz.oracles.aliasing import compare_aliasing
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args

# Errors that mean "Thunder 0.2.6 does not support this program" (not a bug we hunt).
UNSUPPORTED = re.compile(
    r"NotImplementedError|not supported|[Uu]nsupported|is not registered|manual registration|"
    r"DynamicOutputShapeException|Expected pred to be bool|only consists of tensor leaves"
)
# torch's own words for an in-place write into an expanded (overlapping) tensor: eager
# wrote into a fresh tensor, so Thunder handing back a view there is a crash of Thunder's,
# not an op Thunder declined (corpus/thunder_repeat_interleave_view.py).
NOT_A_REFUSAL = re.compile(r"more than one element of the written-to tensor")


def refused(error: str) -> bool:
    """Whether Thunder's error says it does not support something (a counted skip)."""
    return bool(UNSUPPORTED.search(error)) and not NOT_A_REFUSAL.search(error)


SYMBOLIC = "symbolic values"
CACHE_FIX = "thunder-symbolic-cache"  # fixes/thunder_symbolic_cache: Thunder #1525


_registered: list[str] = []


def _thunder():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        thunder = import_thunder()
        if not _registered:
            # Imported here, after import_thunder(), for the reason given below. Installed
            # once, so that a test or benchmark can uninstall them.
            from fuzz.backends.thunder.speedups import install as install_speedups

            if speedups.enabled("thunder"):  # $FUZZ_SPEEDUPS / --speedups (fuzz/speedups.py)
                install_speedups()  # pure overhead of Thunder's interpreter, same traces
            # The harness's torch.library.custom_op ops, run by Thunder's custom_op_ex.
            # (Thunder modules are imported after import_thunder(), which installs the
            # compat shim Thunder needs to import on torch 2.13.)
            from thunder.torch.custom_op import _register_custom_op

            for op in fuzz.custom_ops.THUNDER_OPS:
                _register_custom_op(op)
                _registered.append(op._qualname)
        return thunder


def _executors(thunder):
    """custom_op_ex first (it runs the registered custom ops), then Thunder's defaults."""
    from thunder.executors.custom_op_ex import custom_op_ex

    return [custom_op_ex, *thunder.get_default_executors()]


def failing_op(case: Case, jf, args: tuple) -> str:
    """The op of `case` a failing call raises in: the call runs once more to get the
    traceback's innermost line of the case's source, named by the case's META["lines"]
    (generated cases: the catalogue op) or else by the function that line calls."""
    try:
        jf(*copy_args(args))
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == case.where]
    else:
        return "unknown"
    if not frames:
        return "unknown"
    return line_op(case, frames[-1].lineno)


class ThunderLane:
    name = "thunder"
    # Whether outputs sharing memory is compared with eager (input writes always are).
    compares_sharing = True

    def __init__(self, cache: str = SYMBOLIC, control: bool = True):
        self.cache, self.control = cache, control

    def unavailable(self, device: str) -> str | None:
        if device == "cuda" and not torch.cuda.is_available():
            return "no CUDA device"
        return None

    def _jit(self, fn, cache):
        thunder = _thunder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return thunder.jit(fn, cache=cache, executors=_executors(thunder))

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        thunder = _thunder()
        report = LaneReport(self.name, device)
        # Calls Thunder ran and the oracles compared with eager (0 included: a program
        # whose every call raised counts for no coverage, fuzz.campaign.stats).
        report.counters["calls-checked"] += 0
        checked = report.details.setdefault("checked_calls", [])
        t = report.timings
        jf = self._jit(case.program, self.cache)
        trace_texts = TraceTexts()
        entries_seen: list[str] = []
        fresh: dict[tuple, tuple[str, str] | str] = {}  # call signature -> traces or error
        ops_by_call: dict[int, list[str]] = report.details.setdefault("ops_by_call", {})
        for i, (args, expected) in enumerate(zip(calls, reference)):
            stage = f"call[{i}]"
            hits, misses = thunder.cache_hits(jf), thunder.cache_misses(jf)
            start = time.perf_counter()
            record = observe_call(jf, copy_args(args))
            t["jit+calls"] += time.perf_counter() - start
            if record.error and not expected.error and refused(record.error):
                op = failing_op(case, jf, args)
                report.skipped = f"unsupported by thunder: op {op}: {record.error[:200]}"
                report.counters["unsupported"] += 1
                report.counters[f"unsupported:{op}"] += 1
                break  # the divergences of the calls before still get their control
            hit = thunder.cache_hits(jf) > hits
            missed = thunder.cache_misses(jf) > misses
            report.counters["hits" if hit else "misses" if missed else "no-lookup"] += 1
            start = time.perf_counter()
            report.divergences += [
                dataclasses.replace(d, data=d.data | {"cache_hit": hit})
                for d in self._compare(expected, record, stage, device)
            ]
            t["oracles"] += time.perf_counter() - start
            if record.error:
                continue
            report.counters["calls-checked"] += 1
            checked.append(i)
            start = time.perf_counter()
            traces = trace_texts(thunder.last_traces(jf))
            ops_by_call[i] = trace_ops(thunder.last_traces(jf)[0])
            key = call_signature(args)
            if hit:
                if key in fresh:
                    report.counters["fresh-trace-reused"] += 1
                else:
                    fresh[key] = self._fresh_traces(thunder, case, args)
                found = (
                    unsound_hit_without_fresh_trace(fresh[key], stage, device, self.name)
                    if isinstance(fresh[key], str)
                    else unsound_hit(traces, fresh[key], stage, device, self.name)
                )
                if found:
                    report.divergences.append(found)
            elif missed:
                fresh.setdefault(key, traces)  # a miss traced this signature from scratch
                if entries_seen and matches_any(traces[0], entries_seen):
                    report.counters["missed-legal-hits"] += 1
                entries_seen.append(traces[0])
            t["fresh-trace"] += time.perf_counter() - start
        # Where a call that raised failed (fuzz/facts.py "at"): it has no trace of its own.
        at_by_call = report.details.setdefault("at_by_call", {})
        for d in report.divergences:
            crash = d.kind == f"{self.name}.crash"
            i = int(d.stage[5:-1]) if crash and d.stage[:5] == "call[" else -1
            if i >= 0 and i not in at_by_call and (op := failing_op(case, jf, calls[i])):
                at_by_call[i] = None if op == "unknown" else op
        # The ops Thunder saw (fuzz/facts.py): a call that raised has no trace of its own.
        report.details["ops"] = sorted({op for ops in ops_by_call.values() for op in ops})
        self._record_jit(jf, report)
        if self.cache == SYMBOLIC:
            # Which symbolic-values cache ran: a registered bug of the stock cache (#1525)
            # is recognised by it (corpus/thunder_symbolic_cache_shape_branch.py MATCHES), so a
            # fixes-off campaign counts that bug instead of filing each of its forms.
            state = "fixed" if fixes.active().get(CACHE_FIX) == "applied" else "stock"
            report.divergences = [
                dataclasses.replace(d, data=d.data | {"symbolic_cache": state})
                for d in report.divergences
            ]
        return report

    def _record_jit(self, jf, report: LaneReport) -> None:
        """Details of the lane's jit beyond its traces (a variant's executors)."""

    def _fresh_traces(self, thunder, case: Case, args: tuple) -> tuple[str, str] | str:
        """The initial and execution traces of a fresh jit of this call, or the error a
        fresh jit raises on it."""
        fresh_fn = self._jit(case.program, self.cache)
        record = observe_call(fresh_fn, copy_args(args))
        if record.error is not None:
            return record.error
        return (str(thunder.last_traces(fresh_fn)[0]), str(thunder.last_traces(fresh_fn)[-1]))

    def annotate(
        self,
        case: Case,
        calls: list[tuple],
        reference: list[CallRecord],
        device: str,
        report: LaneReport,
    ) -> None:
        """The control: run the default (constant values) cache and note, on every
        divergence, whether it diverges there too; then the diagnostic repairs
        (fuzz/backends/thunder/repairs.py): a divergence that a re-run with one upstream
        bug repaired does not show says so in data["repaired_by"]."""
        if self.control and report.divergences:
            self._annotate_with_control(case, calls, reference, device, report)
            for name in REPAIRS:
                self._annotate_with_repair(name, case, calls, reference, device, report)
        annotate_origins(case, calls, report, self._jit, self.cache)

    def _compare(self, expected: CallRecord, record: CallRecord, stage: str, device: str):
        """The per-call oracles: results, then aliasing and input mutation."""
        return compare_results(self.name, expected, record, stage, device) + compare_aliasing(
            self.name, expected, record, stage, device, check_sharing=self.compares_sharing
        )

    def _annotate_with_control(self, case, calls, reference, device, report):
        """Run the default (constant values) cache and note where it diverges too. An
        unsound hit has no counterpart there (the control's calls are not compared with
        fresh traces): its control is whether the default cache gets that call wrong in
        any way. The default cache traces a call with new sizes afresh, so "diverges too"
        on a hit says the fresh trace is the wrong one: the cached trace differs from it
        because a lowering got this call wrong, not because the cache missed a check."""
        jf = self._jit(case.program, "constant values")
        diverged: Counter = Counter()
        for i, (args, expected) in enumerate(zip(calls, reference)):
            record = observe_call(jf, copy_args(args))
            for d in self._compare(expected, record, f"call[{i}]", device):
                diverged[(d.kind, d.stage)] += 1
        wrong_at = {stage for _, stage in diverged}

        def diverges_too(d: Divergence) -> bool:
            if d.kind == f"{self.name}.unsound-hit":
                return d.stage in wrong_at
            return (d.kind, d.stage) in diverged

        report.divergences = [
            dataclasses.replace(
                d,
                data=d.data
                | {"control": "diverges too" if diverges_too(d) else "agrees with eager"},
            )
            for d in report.divergences
        ]

    def _annotate_with_repair(self, name, case, calls, reference, device, report):
        """Re-run the sequence (this lane's cache) with the repair `name`; when the repair
        changed what Thunder computed, a divergence of a kind the re-run checks
        (`_compare`'s: not an unsound hit) that it no longer shows gets
        data["repaired_by"]."""
        with repaired(name) as use:
            jf = self._jit(case.program, self.cache)
            shown, checked = set(), set()
            for i, (args, expected) in enumerate(zip(calls, reference)):
                record = observe_call(jf, copy_args(args))
                checked.add(f"call[{i}]")
                shown.update(
                    (d.kind, d.stage) for d in self._compare(expected, record, f"call[{i}]", device)
                )
        if not use.changed:
            return
        compared = {f"{self.name}.{what}" for what in _COMPARED}
        report.divergences = [
            dataclasses.replace(d, data=d.data | {"repaired_by": name})
            if d.kind in compared
            and d.stage in checked
            and (d.kind, d.stage) not in shown
            and "repaired_by" not in d.data
            else d
            for d in report.divergences
        ]


class TraceTexts:
    """The initial and execution trace texts of a call, printed once per cache entry: a
    hit reports its entry's own list of traces (`cs.last_traces = comp_traces` in
    thunder/__init__.py), and printing a trace costs milliseconds."""

    def __init__(self):
        self._printed: dict[int, tuple[list, tuple[str, str]]] = {}

    def __call__(self, traces: list) -> tuple[str, str]:
        kept = self._printed.get(id(traces))
        if kept is not None and kept[0] is traces:
            return kept[1]
        texts = (str(traces[0]), str(traces[-1]))
        self._printed[id(traces)] = (traces, texts)  # holding `traces` keeps its id unique
        return texts


# The kinds `ThunderLane._compare` reports (results, crashes, aliasing), less the lane.
_COMPARED = ("wrong-result", "crash", "aliasing")

# Bookkeeping symbols of a trace, not ops of the program.
_NOT_OPS = ("PrimIDs.UNPACK", "PrimIDs.RETURN", "PrimIDs.DEL", "PrimIDs.COMMENT")


def trace_ops(trace) -> list[str]:
    """The ops of a Thunder trace as its bound symbols name them ("torch.exp",
    "torch.Tensor.add_", "PrimIDs.GT"), bookkeeping symbols left out."""
    ops = {str(b.sym.id) for b in trace.bound_symbols}
    return sorted(op for op in ops if not op.startswith(_NOT_OPS))


def call_signature(args: tuple) -> tuple:
    """What a Thunder trace depends on besides the program: per input leaf, a tensor's
    shape, dtype, device and requires_grad, and the first input Thunder groups it with
    as an alias (same storage data pointer, the rule of `_alias_tensor_of_args_kwargs` in
    thunder/__init__.py); a number's type and value.

    Not strides or storage offsets: Thunder's TensorProxy has neither
    (thunder/core/proxies.py) and its prologue checks neither, so two calls that differ
    only there are traced alike (tests/stacks/thunder/test_thunder_lane.py checks it on a transposed
    input and on a view at an offset)."""
    groups: dict[int, int] = {}
    out = []
    for i, leaf in enumerate(_leaves(args)):
        if isinstance(leaf, torch.Tensor):
            aliased = (
                groups.setdefault(leaf.untyped_storage().data_ptr(), i)
                if type(leaf) is torch.Tensor and leaf.layout is torch.strided
                else i
            )
            out.append(
                (
                    "t",
                    tuple(leaf.shape),
                    str(leaf.dtype),
                    str(leaf.device),
                    leaf.requires_grad,
                    aliased,
                )
            )
        else:
            out.append((type(leaf).__name__, repr(leaf)))
    return tuple(out)


def _leaves(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value
