"""The XNNPACK lane: ExecuTorch as CPU users ship it, with the XNNPACK delegate.

  lane.py   XnnpackLane: torch.export (the EXIR lane's export and contract) ->
            `to_edge_transform_and_lower(..., partitioner=[XnnpackPartitioner()])` ->
            `to_executorch()` with the stock config -> the pip runtime, every call inside
            the exported contract (many sizes inside the bounds, not only the bound)
  kinds.py  the lane's divergence kinds (data, no torch)

What the delegate took is a fact of every divergence: the ops the lowered modules hold,
tagged `xnnpack:` in facts "ops", and the number of delegate calls (details
"partitions"), so registry patterns and triage tell a delegate's bug from a portable
kernel's.
"""

from __future__ import annotations

__all__ = ["XnnpackLane"]


def __getattr__(name: str):
    """`XnnpackLane` on first use (PEP 562): importing the kinds module imports no torch."""
    if name == "XnnpackLane":
        from fuzz.backends.xnnpack.lane import XnnpackLane

        return XnnpackLane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
