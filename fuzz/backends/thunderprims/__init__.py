"""The Thunder-decompositions lane: the Thunder lane with Thunder's own decompositions run.

executor.py  PrimsFirstExecutor: the torch executor declining every op Thunder can
             decompose, so its decompositions run down to prims (on CPU the torch
             executor otherwise claims nearly every op whole)
lane.py      ThunderPrimsLane: the Thunder lane (fuzz/backends/thunder: same oracles,
             cache-hit oracle and default-cache control) jitting with that executor
kinds.py     the lane's divergence kinds (data, no torch)
"""

from __future__ import annotations

__all__ = ["ThunderPrimsLane"]


def __getattr__(name: str):
    """`ThunderPrimsLane` on first use (PEP 562): importing the kinds module imports no torch."""
    if name == "ThunderPrimsLane":
        from fuzz.backends.thunderprims.lane import ThunderPrimsLane

        return ThunderPrimsLane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
