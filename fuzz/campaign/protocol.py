"""What a campaign's workers and its supervisor say to each other: one frozen dataclass per
message, shared by both sides.

    supervisor -> worker   WorkerConfig (once, when the worker starts)
    worker -> supervisor   Hello, then per program Start, LaneStart..., Example, and for
                           divergences Candidate; HarnessError at any time; Bye at the end

On the local engine messages travel as JSON lines over a pipe (`encode` / `decode`); on
the Ray engine (fuzz/extra/ray_engine.py) as the same objects, pickled. Nested records
(a lane's figures, a divergence) are plain JSON-able dicts, documented where they are made
(fuzz.campaign.worker). This module is torch-free.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any, ClassVar

from fuzz.defaults import MAX_CALLS, MAX_OPS, SPEEDUPS_SWITCH
from fuzz.errors import FuzzError

ROOT = Path(__file__).resolve().parents[2]


class ProtocolError(FuzzError, ValueError):
    """A line or object that is not a message of this protocol."""


@dataclasses.dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs to run its part of a campaign."""

    slot: int
    incarnation: int
    seed: int
    fixes: str
    lanes: tuple[str, ...]
    devices: tuple[str, ...]
    explore_s: float  # seconds from the worker's start until exploring stops
    hard_s: float  # seconds from the worker's start until it must have stopped
    shrink_budget: float  # seconds one shrink may take
    plugins: tuple[str, ...] = ()
    max_ops: int = MAX_OPS
    max_calls: int = MAX_CALLS
    quota: int | None = None  # explored programs, at most
    database: str | None = None  # Hypothesis example database: a folder or redis:// URL
    corpus: tuple[str, ...] = ()  # folders whose registered bugs are known
    skip_sources: tuple[str, ...] = ()  # sha1 of programs that crashed an earlier worker
    suppressed: tuple[str, ...] = ()  # buckets already shrunk in this campaign
    case_seed: int = 0  # seed of every case's calls()
    harness: str = ""  # the harness and Hypothesis versions every worker must share
    speedups: str = SPEEDUPS_SWITCH  # fuzz/speedups.py: our pure-overhead patches of the stacks
    op_focus: bool = True  # programs draw their focus ops mostly among the least drawn (focus.py)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkerConfig:
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - fields
        if unknown:
            raise ProtocolError(f"unknown WorkerConfig fields {sorted(unknown)}")
        tuples = {k: tuple(v) for k, v in data.items() if isinstance(v, list)}
        return cls(**(data | tuples))


# ---- worker -> supervisor ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Message:
    tag: ClassVar[str] = ""


@dataclasses.dataclass(frozen=True)
class Hello(Message):
    """The worker is ready: its fixes, versions and the (lane, device) pairs it cannot run."""

    tag: ClassVar[str] = "hello"
    pid: int
    host: str
    fixes: dict[str, str]
    versions: dict[str, str | None]
    unavailable: dict[str, str]  # "lane/device" -> why
    harness: str
    speedups: dict = dataclasses.field(default_factory=dict)  # fuzz.speedups.state()
    compat: dict = dataclasses.field(default_factory=dict)  # fuzz.speedups.compat_state()


@dataclasses.dataclass(frozen=True)
class Start(Message):
    """A program is about to run: if the worker dies now, this is the program that did it."""

    tag: ClassVar[str] = "start"
    n: int
    phase: str  # explore | shrink
    sha: str
    source: str


@dataclasses.dataclass(frozen=True)
class LaneStart(Message):
    tag: ClassVar[str] = "lane"
    lane: str
    device: str


@dataclasses.dataclass(frozen=True)
class Example(Message):
    """A program ran (or was answered from the worker's verdict cache: `cached`).

    `lanes` maps "lane/device" to that lane's record: {"kinds", "known", "buckets",
    "counters", "timings", "skipped", "error", "flaky"} (fuzz.campaign.worker.lane_record).
    `coverage` is the generator's coverage of the program (GeneratedCase.coverage())."""

    tag: ClassVar[str] = "example"
    n: int
    phase: str
    gen_s: float
    run_s: float = 0.0
    cached: bool = False
    lanes: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    coverage: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Candidate(Message):
    """A program showing a new bucket (`final`: the end of its shrink)."""

    tag: ClassVar[str] = "candidate"
    bucket: str
    final: bool
    phase: str
    source: str
    divergences: list[dict[str, Any]]  # Divergence.to_json() + "bucket" + "known_as"
    ops: list[str] = dataclasses.field(default_factory=list)
    shrunk: str = ""  # yes | cut short | "" (still shrinking)


@dataclasses.dataclass(frozen=True)
class HarnessError(Message):
    tag: ClassVar[str] = "error"
    message: str


@dataclasses.dataclass(frozen=True)
class Bye(Message):
    tag: ClassVar[str] = "bye"
    reason: str  # budget | quota | exhausted | errors | error
    explored: int


MESSAGES: dict[str, type[Message]] = {
    cls.tag: cls for cls in (Hello, Start, LaneStart, Example, Candidate, HarnessError, Bye)
}


def encode(message: Message) -> bytes:
    """One JSON line."""
    return (
        json.dumps({"t": message.tag, **dataclasses.asdict(message)}, default=str) + "\n"
    ).encode()


def decode(line: bytes | str) -> Message:
    """The message of one JSON line; ProtocolError when it is not one."""
    try:
        data = json.loads(line)
    except ValueError as e:
        raise ProtocolError(f"not JSON: {str(line)[:200]!r}") from e
    if not isinstance(data, dict) or data.get("t") not in MESSAGES:
        raise ProtocolError(f"not a message: {str(line)[:200]!r}")
    cls = MESSAGES[data.pop("t")]
    try:
        return cls(**data)
    except TypeError as e:
        raise ProtocolError(f"bad {cls.__name__}: {e}") from e


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def derive_seed(*parts: Any) -> int:
    """A 32-bit seed derived from the campaign seed and a worker's slot, incarnation, ..."""
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def harness_stamp() -> str:
    """The Hypothesis version and a digest of the harness's own code (fuzz/, fixes/): the
    workers of one campaign must all have the same, or their examples (and findings) do not
    mean the same thing."""
    digest = hashlib.sha1()
    for folder in ("fuzz", "fixes"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return (
        f"hypothesis {importlib.metadata.version('hypothesis')}, harness {digest.hexdigest()[:12]}"
    )
