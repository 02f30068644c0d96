"""The ThunderFX lane: Thunder as `torch.compile` users run it.

  lane.py   ThunderFXLane: `torch.compile(program, backend=ThunderCompiler(),
            dynamic=True)` (what `thunder.dynamo.thunderfx` builds) fed the whole call
            sequence in order, checked call by call against eager
  kinds.py  the lane's divergence kinds (data, no torch)

Two caches stand in front of Thunder here: Dynamo's guards pick a compiled graph for each
call, and each Thunder partition of that graph has Thunder's own cache. A call that
reuses a graph whose result is wrong while a fresh compile of the same call is right is
an unsound hit (`thunderfx.unsound-hit`), as on the Thunder lane; a recompile that
produces a graph equal to one already compiled is a counted cost (`missed-graph-reuse`).
"""

from __future__ import annotations

__all__ = ["ThunderFXLane"]


def __getattr__(name: str):
    """`ThunderFXLane` on first use (PEP 562): importing the kinds module imports no torch."""
    if name == "ThunderFXLane":
        from fuzz.backends.thunderfx.lane import ThunderFXLane

        return ThunderFXLane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
