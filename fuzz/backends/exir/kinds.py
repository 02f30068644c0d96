"""The EXIR lane's divergence kinds, declared with the public function every lane uses
(fuzz.divergence.register_kinds). Data only, torch-free: the core imports this module by
name the first time the catalogue is read (fuzz.divergence.BUILT_IN_KINDS_MODULES), so
case files are checked against these kinds before the lane itself is imported.
"""

from __future__ import annotations

from fuzz.divergence import register_kinds

# torch.export -> to_edge -> to_executorch -> runtime
KINDS = {
    "exir.spec-meta": (
        "a TensorSpec's shape is not the shape in its node's meta['val'] after SpecPropPass"
    ),
    "exir.under-allocation": "a planned buffer is smaller than what eager produced for that tensor",
    "exir.bound-loss": (
        "a planned upper bound is unbounded or far above the bound the program declares"
    ),
    "exir.overlap": "two tensors with overlapping lifetimes share bytes in the memory plan",
    "exir.emission": (
        "the emitted program's size lists disagree with the graph it was emitted from "
        "(an item out of order, a constant where the graph computes a size)"
    ),
    "exir.aliasing": (
        "EXIR's alias classes disagree with eager storage sharing in a way "
        "functionalization does not allow"
    ),
    "exir.runtime-result": "the ExecuTorch runtime's outputs differ from eager",
    "exir.edge-result": (
        "the edge program, run in eager where the runtime gave no result "
        "(no kernel), differs from eager"
    ),
    "exir.pipeline-variance": (
        "re-running SpecPropPass where ExecuTorch passes may changes the memory plan"
    ),
    "exir.unchecked-contract": (
        "the runtime accepted an input outside the exported contract "
        "(range_constraints or export guards)"
    ),
    "exir.crash": "the EXIR pipeline or runtime raised (or died) where eager did not",
}

register_kinds("exir", KINDS)

# The kinds that say the memory plan or the emitted program itself is wrong: a runtime
# symptom of the same program (a wrong value, a crash, a death) is theirs
# (fuzz/campaign/causes.py, rule (g)).
PLAN_KINDS = ("exir.overlap", "exir.under-allocation", "exir.emission")
# ... and an out variant whose out= argument is not the buffer planned for that output
# (exir.aliasing rule S3, fuzz/backends/exir/oracles/aliasing.py): the kernel writes one
# output into another's buffer, whatever it then computes.
OUT_VARIANT = "S3 out-variant"


def explains_runtime(kind: str, details: str) -> bool:
    """Whether a divergence says the lowered program itself is wrong (rule (g))."""
    return kind in PLAN_KINDS or (kind == "exir.aliasing" and details.startswith(OUT_VARIANT))
