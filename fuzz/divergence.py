"""Divergence records and the public catalogue of divergence kinds.

A kind is a stable dotted name, `<lane>.<what>`; records, reports, JSON and case files
all use these names. Every kind belongs to a lane, and every lane declares its own with
one public function, `register_kinds`: a built-in lane in a torch-free data module of its
package (`BUILT_IN_KINDS_MODULES`), a plugin's lane through
fuzz.backends.registry.register_lane. `KINDS` is the read-only view of all of them, in a
fixed order (the built-in lanes first, as listed, then plugin lanes as they register).

The core sits below the lanes (import-linter), yet checks case files and MATCHES patterns
against the kinds before any lane is imported. So it names the built-in kinds modules
rather than importing them, and imports them (data only: no torch, no lane) the first
time the catalogue is read or written, as fuzz.speedups.MODULES names the lanes'
speedups modules.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any

# Each built-in lane's kinds module; it calls register_kinds when imported.
BUILT_IN_KINDS_MODULES = {
    "thunder": "fuzz.backends.thunder.kinds",
    "exir": "fuzz.backends.exir.kinds",
    "xnnpack": "fuzz.backends.xnnpack.kinds",
    "thunderfx": "fuzz.backends.thunderfx.kinds",
    "thunderprims": "fuzz.backends.thunderprims.kinds",
}

# lane -> {kind: meaning}; the built-in lanes' entries come first whatever imports first.
_BY_LANE: dict[str, dict[str, str]] = {lane: {} for lane in BUILT_IN_KINDS_MODULES}
_LOAD_LOCK = threading.RLock()  # re-entrant: a kinds module calls back into register_kinds
_loaded = False


def _load_built_in_kinds() -> None:
    """Import the built-in lanes' kinds modules, once per process."""
    global _loaded
    with _LOAD_LOCK:
        if _loaded:
            return
        _loaded = True  # first: each module's register_kinds comes back here
        try:
            for module in BUILT_IN_KINDS_MODULES.values():
                importlib.import_module(module)
        except BaseException:
            _loaded = False
            raise


class _Catalogue(Mapping[str, str]):
    """Every lane's kinds, {kind: meaning}, read-only: lanes add to it with register_kinds."""

    def __getitem__(self, kind: str) -> str:
        _load_built_in_kinds()
        if not isinstance(kind, str):
            raise KeyError(kind)
        return _BY_LANE.get(lane_of(kind), {})[kind]

    def __iter__(self) -> Iterator[str]:
        _load_built_in_kinds()
        return iter([kind for kinds in _BY_LANE.values() for kind in kinds])

    def __len__(self) -> int:
        _load_built_in_kinds()
        return sum(map(len, _BY_LANE.values()))

    def __repr__(self) -> str:
        return f"KINDS({dict(self)!r})"


KINDS: Mapping[str, str] = _Catalogue()


# kind -> the kind of another lane that runs the same stack code for it (fuzz.known).
_SAME_BUGS_AS: dict[str, str] = {}


def register_kinds(
    lane: str, kinds: Mapping[str, str], same_bugs_as: Mapping[str, str] | None = None
) -> None:
    """Add lane `lane`'s kinds ({"<lane>.<what>": meaning}) to KINDS: the one way a lane,
    built-in or a plugin's, declares them. A kind of another lane, or a known kind with
    another meaning, raises ValueError (nothing is added).

    `same_bugs_as` ({"<lane>.<what>": "<other lane>.<what>"}) is for a lane that runs
    another lane's stack for part of its work (the XNNPACK lane's export, `to_edge` and
    portable kernels are the EXIR lane's; the ThunderFX lane's partitions are
    `thunder.jit`'s): a divergence of such a kind is also matched by the registry patterns
    of the other kind, at the same stage with the same details and facts, so a registered
    bug of the shared code is known on both lanes (fuzz.known)."""
    _load_built_in_kinds()  # a clash with a built-in kind shows now, not at its first read
    known = _BY_LANE.get(lane, {})
    for kind, meaning in kinds.items():
        if lane_of(kind) != lane or kind == f"{lane}.":
            raise ValueError(f"kind {kind!r} of lane {lane!r} must be named '{lane}.<what>'")
        if known.get(kind, meaning) != meaning:
            raise ValueError(f"kind {kind!r} is already registered as {known[kind]!r}")
    for kind, other in (same_bugs_as or {}).items():
        if kind not in kinds or lane_of(other) == lane:
            raise ValueError(f"same_bugs_as: {kind!r} -> {other!r} is not one of this lane's kinds")
    _BY_LANE.setdefault(lane, {}).update(kinds)
    _SAME_BUGS_AS.update(same_bugs_as or {})


def pattern_kinds(kind: str) -> tuple[str, ...]:
    """`kind`, then the kind of the lane whose registered patterns also recognise it."""
    _load_built_in_kinds()
    return (kind, _SAME_BUGS_AS[kind]) if kind in _SAME_BUGS_AS else (kind,)


def unregister_kinds(lane: str) -> None:
    """Forget a plugin lane's kinds (a test's stand-in lane, when the test ends). A
    built-in lane's kinds are the lane's own: ValueError."""
    if lane in BUILT_IN_KINDS_MODULES:
        raise ValueError(f"lane {lane!r} is built in; its kinds cannot be unregistered")
    _BY_LANE.pop(lane, None)


_CALL_INDEX = re.compile(r"\[\d+\]")


def lane_of(kind: str) -> str:
    return kind.split(".", 1)[0]


# Lanes that run `thunder.jit` with the symbolic-values cache and the default cache as
# control, only with other executors: their divergences carry the same data (cache_hit,
# control, symbolic_cache, diff) and are bucketed and merged as the Thunder lane's.
THUNDER_JIT_LANES = ("thunder", "thunderprims")


def thunder_jit_kind(kind: str) -> str:
    """`kind` as the Thunder lane's ("thunderprims.unsound-hit" -> "thunder.unsound-hit"),
    for the rules that read a Thunder jit's data; other kinds unchanged."""
    lane, _, what = kind.partition(".")
    return f"thunder.{what}" if lane in THUNDER_JIT_LANES else kind


_CALL_STAGE = re.compile(r"^call\[(\d+)\]")


def call_index(stage: str) -> int | None:
    """The call a stage names ("call[2]" -> 2), None for a stage that is no call."""
    m = _CALL_STAGE.match(stage)
    return int(m.group(1)) if m else None


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
                f"unknown divergence kind {self.kind!r}; declare it with "
                "fuzz.divergence.register_kinds (a built-in lane: in its kinds module)"
            )

    @property
    def lane(self) -> str:
        return lane_of(self.kind)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"lane": self.lane}

    def __str__(self) -> str:
        return f"{self.kind} at {self.stage} on {self.device}: {self.details}"
