"""ThunderPrimsLane: the Thunder lane (fuzz/backends/thunder/lane.py) with every jit it
makes (the lane's, the fresh traces of the cache-hit oracle, the default-cache control,
the origin's probe) built by `jit_with_decompositions`: Thunder's decompositions run, the
torch executor runs their prims (fuzz/backends/thunderprims/executor.py).

Details, besides the Thunder lane's: "decomposed" (the ops whose decomposition ran) and
"claimed" (the ops the torch executor ran whole, as their decomposition could not run),
the coverage this lane adds over the Thunder lane.

Which outputs share memory is not compared here, only what a call writes into its
inputs. The torch executor runs the view prims of a decomposition as views and the
others as new tensors, so outputs share memory where eager's do not (`x.repeat(3)` of a
one-element `x` is `expand` then `reshape`: a view of `x`) and do not where eager's do
(`contiguous()` of a contiguous tensor is a copy). No configuration users run executes
decompositions that way (nvFuser's fusions return new tensors), and the first nights
here filed 3 such differences in 163 programs, none a bug an owner would take.
"""

from __future__ import annotations

from fuzz.backends.base import LaneReport
from fuzz.backends.thunder.lane import ThunderLane, _thunder
from fuzz.backends.thunderprims.executor import jit_with_decompositions


class ThunderPrimsLane(ThunderLane):
    name = "thunderprims"
    compares_sharing = False  # module docstring

    def _jit(self, fn, cache):
        from thunder.executors.custom_op_ex import custom_op_ex

        return jit_with_decompositions(_thunder(), fn, cache, first=(custom_op_ex,))

    def _record_jit(self, jf, report: LaneReport) -> None:
        ex = jf._prims_executor
        report.details["decomposed"] = sorted(ex.decomposed)
        report.details["claimed"] = sorted(ex.claimed)
