"""The Thunder lane's divergence kinds, declared with the public function every lane uses
(fuzz.divergence.register_kinds). Data only, torch-free: the core imports this module by
name the first time the catalogue is read (fuzz.divergence.BUILT_IN_KINDS_MODULES), so
case files are checked against these kinds before the lane itself is imported.
"""

from __future__ import annotations

from fuzz.divergence import register_kinds

# thunder.jit with cache="symbolic values", and the default cache as control
KINDS = {
    "thunder.wrong-result": "a call's outputs, dtypes, shapes or exception differ from eager",
    "thunder.unsound-hit": (
        "a cache hit ran a cached trace that differs from a fresh trace of the same call"
    ),
    "thunder.aliasing": (
        "outputs alias inputs or each other differently from eager, or input mutations differ"
    ),
    "thunder.crash": "thunder raised (or its process died) where eager did not",
}

register_kinds("thunder", KINDS)
