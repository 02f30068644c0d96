"""The Thunder-decompositions lane's divergence kinds (data only, torch-free: see
fuzz/backends/exir/kinds.py for why a lane's kinds live apart from the lane)."""

from __future__ import annotations

from fuzz.divergence import register_kinds

# thunder.jit(cache="symbolic values") with Thunder's decompositions run (the torch
# executor limited to prims and to ops Thunder cannot decompose), the default cache as control
KINDS = {
    "thunderprims.wrong-result": "a call's outputs, dtypes, shapes or exception differ from eager",
    "thunderprims.unsound-hit": (
        "a cache hit ran a cached trace that differs from a fresh trace of the same call"
    ),
    "thunderprims.aliasing": (
        "outputs alias inputs or each other differently from eager, or input mutations differ"
    ),
    "thunderprims.crash": "thunder raised (or its process died) where eager did not",
}

# Everything above the executors (the interpreter, the traces, the cache and its fix, the
# torch executor's lowering of prims and of the ops it still claims) is the Thunder lane's
# code: its registered bugs are known here with the same details and facts.
SAME_BUGS_AS = {kind: "thunder." + kind.split(".", 1)[1] for kind in KINDS}

register_kinds("thunderprims", KINDS, SAME_BUGS_AS)
