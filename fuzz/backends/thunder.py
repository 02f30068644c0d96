"""The Thunder lane: one `thunder.jit(fn, cache="symbolic values")` object fed the whole
call sequence in order, checked call by call against eager.

Per call: results and aliasing (fuzz.oracles), then, on a cache hit, the cached trace
against a fresh trace (unsound hit), and on a miss after the first call, whether an
existing entry had the same trace (a missed legal hit, counted, not a divergence). When
something diverges, the same sequence runs under the default cache as a control, and each
divergence says whether the control diverged too (cache-specific or not).
"""

from __future__ import annotations

import dataclasses
import re
import time
import traceback
import warnings
from collections import Counter

import torch

import fuzz.custom_ops
from fixes.compat_thunder_named_tensor import import_thunder
from fuzz.backends.base import LaneReport
from fuzz.case import Case
from fuzz.observe import CallRecord, observe_call
from fuzz.oracles.aliasing import compare_aliasing
from fuzz.oracles.results import compare_results
from fuzz.oracles.thunder_cache import matches_any, unsound_hit
from fuzz.tensors import copy_args

# Errors that mean "Thunder 0.2.6 does not support this program" (not a bug we hunt).
UNSUPPORTED = re.compile(
    r"NotImplementedError|not supported|[Uu]nsupported|is not registered|manual registration|"
    r"DynamicOutputShapeException|Expected pred to be bool|only consists of tensor leaves"
)

SYMBOLIC = "symbolic values"


_registered: list[str] = []


def _thunder():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        thunder = import_thunder()
        if not _registered:
            # The harness's torch.library.custom_op ops, run by Thunder's custom_op_ex.
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
    line = frames[-1].lineno
    meta = getattr(case.module, "META", None) if case.module is not None else None
    if isinstance(meta, dict) and line in meta.get("lines", {}):
        return meta["lines"][line]
    text = case.source.splitlines()[line - 1] if line <= len(case.source.splitlines()) else ""
    called = re.search(r"(torch(?:\.\w+)+)\(|\.(\w+)\(", text)
    return (called.group(1) or called.group(2)) if called else f"line {line}"


class ThunderLane:
    name = "thunder"

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
        t = report.timings
        jf = self._jit(case.program, self.cache)
        entries_seen: list[str] = []
        for i, (args, expected) in enumerate(zip(calls, reference)):
            stage = f"call[{i}]"
            hits, misses = thunder.cache_hits(jf), thunder.cache_misses(jf)
            start = time.perf_counter()
            record = observe_call(jf, copy_args(args))
            t["jit+calls"] += time.perf_counter() - start
            if record.error and not expected.error and UNSUPPORTED.search(record.error):
                op = failing_op(case, jf, args)
                report.skipped = f"unsupported by thunder: op {op}: {record.error[:200]}"
                report.counters["unsupported"] += 1
                report.counters[f"unsupported:{op}"] += 1
                break  # the divergences of the calls before still get their control
            hit = thunder.cache_hits(jf) > hits
            missed = thunder.cache_misses(jf) > misses
            report.counters["hits" if hit else "misses" if missed else "no-lookup"] += 1
            start = time.perf_counter()
            report.divergences += self._compare(expected, record, stage, device)
            t["oracles"] += time.perf_counter() - start
            if record.error:
                continue
            trace = str(thunder.last_traces(jf)[0])
            start = time.perf_counter()
            if hit:
                fresh_fn = self._jit(case.program, self.cache)
                fresh = observe_call(fresh_fn, copy_args(args))
                if fresh.error is None:
                    found = unsound_hit(trace, str(thunder.last_traces(fresh_fn)[0]), stage, device)
                    if found:
                        report.divergences.append(found)
            elif missed:
                if entries_seen and matches_any(trace, entries_seen):
                    report.counters["missed-legal-hits"] += 1
                entries_seen.append(trace)
            t["fresh-trace"] += time.perf_counter() - start
        if report.divergences and self.control:
            start = time.perf_counter()
            self._annotate_with_control(case, calls, reference, device, report)
            t["control"] += time.perf_counter() - start
        return report

    def _compare(self, expected: CallRecord, record: CallRecord, stage: str, device: str):
        """The per-call oracles: results, then aliasing and input mutation."""
        return compare_results(self.name, expected, record, stage, device) + compare_aliasing(
            self.name, expected, record, stage, device
        )

    def _annotate_with_control(self, case, calls, reference, device, report):
        """Run the default (constant values) cache and note where it diverges too."""
        jf = self._jit(case.program, "constant values")
        diverged: Counter = Counter()
        for i, (args, expected) in enumerate(zip(calls, reference)):
            record = observe_call(jf, copy_args(args))
            for d in self._compare(expected, record, f"call[{i}]", device):
                diverged[(d.kind, d.stage)] += 1
        report.divergences = [
            dataclasses.replace(
                d,
                data=d.data
                | {
                    "control": "diverges too"
                    if (d.kind, d.stage) in diverged
                    else "agrees with eager"
                },
            )
            for d in report.divergences
        ]
