"""The Thunder lane: one `thunder.jit(fn, cache="symbolic values")` fed the whole call
sequence, checked call by call against eager, with the default cache as control.

Read in this order:

  lane.py      ThunderLane: jit once, feed the calls, check each (start here)
  oracles/     the lane's own judgement: cache.py, unsound and missed legal hits by
               trace comparison (results and aliasing are fuzz/oracles/, shared)
  repairs.py   diagnostic repairs: Thunder with one registered bug repaired, for the
               annotation's re-runs (`repaired_by`)
  origin.py    the first program value Thunder gets wrong (a wrong result's `origin`)
  speedups.py  Thunder's interpreter without its pure-overhead costs (same traces), a
               fixes._patching.PatchSet switched by --speedups
  kinds.py     the lane's divergence kinds (data, no torch: the core reads them before
               the lane is imported, so the lane class is loaded on first use)

Thunder itself is imported through fixes/compat_thunder_named_tensor.py (it does not
import on torch 2.13 without that shim).
"""

from __future__ import annotations

__all__ = ["ThunderLane"]


def __getattr__(name: str):
    """`ThunderLane` on first use (PEP 562): importing the package, as importing its torch-free
    kinds module does, imports no torch."""
    if name == "ThunderLane":
        from fuzz.backends.thunder.lane import ThunderLane

        return ThunderLane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
