"""The ThunderFX lane's divergence kinds (data only, torch-free: see
fuzz/backends/exir/kinds.py for why a lane's kinds live apart from the lane)."""

from __future__ import annotations

from fuzz.divergence import register_kinds

# torch.compile(program, backend=ThunderCompiler(), dynamic=True) over the call sequence
KINDS = {
    "thunderfx.wrong-result": "a call's outputs, dtypes, shapes or exception differ from eager",
    "thunderfx.unsound-hit": (
        "a call that reused a compiled graph (no recompile) differs from eager, and a fresh "
        "compile of the same call agrees with eager"
    ),
    "thunderfx.aliasing": (
        "outputs alias inputs or each other differently from eager, or input mutations differ"
    ),
    "thunderfx.crash": (
        "compiling or running the call raised (or its process died) where eager did not"
    ),
}

# The Thunder partitions run `thunder.jit` (its default cache): a registered Thunder bug
# shows here with the same details and facts. Unsound hits are another cache's: not mapped.
SAME_BUGS_AS = {
    "thunderfx.crash": "thunder.crash",
    "thunderfx.wrong-result": "thunder.wrong-result",
    "thunderfx.aliasing": "thunder.aliasing",
}

register_kinds("thunderfx", KINDS, SAME_BUGS_AS)
