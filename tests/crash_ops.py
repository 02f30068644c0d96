"""Test-only: an op that kills its process, and a fast fake lane that uses it.

Imported as a plugin (`python -m fuzz nightly|replay --plugin tests.crash_ops`), this
module replaces the *thunder* lane of this process with `CrashTestLane` (named "thunder"
so that its divergences use the public `thunder.*` kinds; nothing else is changed, and
only processes that load the plugin see it). The lane does not import Thunder: it runs
the program eagerly and compares with the reference, so a campaign over it runs many
programs per second. Its behaviour is chosen by $FUZZ_TEST_LANE (comma-separated):

    crash     when any input of any call has a dim of size $FUZZ_TEST_CRASH_DIM (default 7),
              call `torch.ops.fuzz_test.crash_if(x, True)`, whose kernel calls `os.abort()`:
              the process dies with SIGABRT, as a segfaulting backend kernel would
    segv      the same, but the kernel reads address 0 (`ctypes.string_at(0)`): SIGSEGV
    hang      the same, but the kernel sleeps for an hour
    diverge   report `thunder.wrong-result` at the first call of every program that uses
              `torch.sin` (deterministic, and Hypothesis can shrink it to `torch.sin(x0)`)

With none of them the lane passes everything.
"""

from __future__ import annotations

import ctypes
import os
import time

import torch

from fuzz.backends import registry
from fuzz.backends.base import LaneReport
from fuzz.divergence import Divergence
from fuzz.observe import observe_call
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args

_lib = torch.library.Library("fuzz_test", "DEF")  # noqa: F841  (owns the definition)
_lib.define("crash_if(Tensor x, bool flag, str how) -> Tensor")


@torch.library.impl("fuzz_test::crash_if", "CompositeExplicitAutograd", lib=_lib)
def _crash_if(x, flag, how):
    if flag:
        if how == "segv":
            ctypes.string_at(0)
        elif how == "hang":
            time.sleep(3600)
        else:
            os.abort()
    return x.clone()


def modes() -> set[str]:
    return {m.strip() for m in os.environ.get("FUZZ_TEST_LANE", "").split(",") if m.strip()}


def crash_dim() -> int:
    return int(os.environ.get("FUZZ_TEST_CRASH_DIM", "7"))


def flagged(calls) -> bool:
    dim = crash_dim()
    return any(isinstance(a, torch.Tensor) and dim in a.shape for args in calls for a in args)


class CrashTestLane:
    name = "thunder"

    def unavailable(self, device: str) -> str | None:
        return None if device == "cpu" else "the crash test lane runs on cpu only"

    def run(self, case, calls, reference, device) -> LaneReport:
        report = LaneReport(self.name, device)
        active = modes()
        how = next((m for m in ("segv", "hang", "crash") if m in active), None)
        if how and flagged(calls):
            torch.ops.fuzz_test.crash_if(torch.zeros(1), True, how)
        start = time.perf_counter()
        for i, (args, expected) in enumerate(zip(calls, reference)):
            record = observe_call(case.program, copy_args(args))
            report.divergences += compare_results("thunder", expected, record, f"call[{i}]", device)
            report.counters["misses" if i == 0 else "hits"] += 1
        report.timings["jit+calls"] += time.perf_counter() - start
        if "diverge" in active and "torch.sin(" in case.source:
            report.divergences.append(
                Divergence(
                    "thunder.wrong-result",
                    "call[0]",
                    "test lane: programs using torch.sin diverge",
                    device,
                )
            )
        return report


registry.register_lane(CrashTestLane())  # test-only: the Thunder lane in this process
