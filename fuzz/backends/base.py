"""The narrow door between the case runner (fuzz/case_runner.py) and a backend."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, ClassVar, Protocol

from fuzz.case import Case
from fuzz.divergence import Divergence
from fuzz.observe import CallRecord


@dataclasses.dataclass
class LaneReport:
    lane: str
    device: str
    divergences: list[Divergence] = dataclasses.field(default_factory=list)
    skipped: str | None = None  # why the lane could not run this case (not a divergence)
    counters: Counter = dataclasses.field(default_factory=Counter)  # hits, misses, ...
    timings: Counter = dataclasses.field(default_factory=Counter)  # stage -> seconds
    details: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def kinds(self) -> set[str]:
        return {d.kind for d in self.divergences}


class Lane(Protocol):
    name: ClassVar[str]

    def unavailable(self, device: str) -> str | None:
        """Why this lane cannot run on `device` here, or None."""

    def run(
        self, case: Case, calls: list[tuple], reference: list[CallRecord], device: str
    ) -> LaneReport:
        """Run every call in order on one compiled object and check it against `reference`.

        `calls` are the materialized arguments on `device`; the lane copies them
        (fuzz.tensors.copy_args) before each use, because calls may mutate inputs.
        """
