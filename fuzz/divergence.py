"""Divergence records and the public catalogue of divergence kinds.

A kind is a stable dotted name, `<lane>.<what>`; records, reports, JSON and case files
all use these names. A built-in lane's kinds are here (with their one-line meanings): case
files and MATCHES patterns are checked against them by the torch-free core, before any
lane is imported. A lane a plugin adds registers its own with `register_kinds` (through
fuzz.backends.registry.register_lane); nothing else writes KINDS.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

KINDS: dict[str, str] = {
    # Thunder lane (thunder.jit with cache="symbolic values", and the default cache as control)
    "thunder.wrong-result": "a call's outputs, dtypes, shapes or exception differ from eager",
    "thunder.unsound-hit": (
        "a cache hit ran a cached trace that differs from a fresh trace of the same call"
    ),
    "thunder.aliasing": (
        "outputs alias inputs or each other differently from eager, or input mutations differ"
    ),
    "thunder.crash": "thunder raised (or its process died) where eager did not",
    # EXIR lane (torch.export -> to_edge -> to_executorch -> runtime)
    "exir.spec-meta": (
        "a TensorSpec's shape is not the shape in its node's meta['val'] after SpecPropPass"
    ),
    "exir.under-allocation": "a planned buffer is smaller than what eager produced for that tensor",
    "exir.bound-loss": (
        "a planned upper bound is unbounded or far above the bound the program declares"
    ),
    "exir.overlap": "two tensors with overlapping lifetimes share bytes in the memory plan",
    "exir.aliasing": (
        "EXIR's alias classes disagree with eager storage sharing in a way "
        "functionalization does not allow"
    ),
    "exir.runtime-result": "the ExecuTorch runtime's outputs differ from eager",
    "exir.pipeline-variance": (
        "re-running SpecPropPass where ExecuTorch passes may changes the memory plan"
    ),
    "exir.unchecked-contract": (
        "the runtime accepted an input outside the exported contract "
        "(range_constraints or export guards)"
    ),
    "exir.crash": "the EXIR pipeline or runtime raised (or died) where eager did not",
}


def register_kinds(lane: str, kinds: Mapping[str, str]) -> None:
    """Add lane `lane`'s kinds ({"<lane>.<what>": meaning}) to KINDS. A kind of another
    lane, or a known kind with another meaning, raises ValueError (nothing is added)."""
    for kind, meaning in kinds.items():
        if lane_of(kind) != lane or kind == f"{lane}.":
            raise ValueError(f"kind {kind!r} of lane {lane!r} must be named '{lane}.<what>'")
        if KINDS.get(kind, meaning) != meaning:
            raise ValueError(f"kind {kind!r} is already registered as {KINDS[kind]!r}")
    KINDS.update(kinds)


_CALL_INDEX = re.compile(r"\[\d+\]")


def lane_of(kind: str) -> str:
    return kind.split(".", 1)[0]


def stage_kind(stage: str) -> str:
    """A stage without its call index, its probe kept: "call[2]" -> "call",
    "contract[upper]" and "pipeline-variance[repeat]" stay as they are.

    The index goes because shrinking moves the failing call around (the same bug shows at
    call[1] in one program and call[4] in another); the probe or insertion point stays
    because it tells bugs apart (an unchecked upper bound is not an unchecked guard)."""
    return _CALL_INDEX.sub("", stage).strip() or stage


@dataclasses.dataclass(frozen=True)
class Divergence:
    """One observed disagreement between a lane and the eager reference.

    `stage` says where in the lane it showed (e.g. "call[2]", "to_executorch",
    "memory-planning"); `details` is for people; `data` holds JSON-able figures.
    """

    kind: str
    stage: str
    details: str
    device: str = "cpu"
    data: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(
                f"unknown divergence kind {self.kind!r}; add it to fuzz.divergence.KINDS"
            )

    @property
    def lane(self) -> str:
        return lane_of(self.kind)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"lane": self.lane}

    def __str__(self) -> str:
        return f"{self.kind} at {self.stage} on {self.device}: {self.details}"
