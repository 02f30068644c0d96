"""The Thunder lane: one `thunder.jit(fn, cache="symbolic values")` fed the whole call
sequence, checked call by call against eager, with the default cache as control.

Read in this order:

  lane.py      ThunderLane: jit once, feed the calls, check each (start here)
  oracles/     the lane's own judgement: cache.py, unsound and missed legal hits by
               trace comparison (results and aliasing are fuzz/oracles/, shared)
  speedups.py  Thunder's interpreter without its pure-overhead costs (same traces), a
               fixes._patching.PatchSet switched by --speedups

Thunder itself is imported through fixes/compat_thunder_named_tensor.py (it does not
import on torch 2.13 without that shim).
"""

from fuzz.backends.thunder.lane import ThunderLane

__all__ = ["ThunderLane"]
