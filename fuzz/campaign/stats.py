"""The figures a campaign aggregates, as plain JSON-able dicts.

A worker sends one `example` record per program it ran; the parent folds them into a
`CampaignStats`. Lane figures count *explored* programs only (what generation produced);
programs run while shrinking are counted, and their time booked, separately, so skip
rates and coverage describe the generator, not the shrinker.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any


def skip_category(reason: str) -> str:
    """A skip reason's category ("unsupported by thunder: ..." -> "unsupported by thunder")."""
    return reason.split(":", 1)[0].strip()[:80] or "skipped"


@dataclasses.dataclass
class LaneStats:
    programs: int = 0  # explored programs this lane was asked to run
    ran: int = 0  # ... of which it actually ran (not skipped)
    skipped: Counter = dataclasses.field(default_factory=Counter)  # category -> n
    divergent: int = 0  # programs with at least one confirmed divergence
    kinds: Counter = dataclasses.field(default_factory=Counter)  # kind -> programs showing it
    flaky: Counter = dataclasses.field(default_factory=Counter)  # kind -> did not reproduce
    counters: Counter = dataclasses.field(default_factory=Counter)  # hits, misses, ...
    timings: Counter = dataclasses.field(default_factory=Counter)  # stage -> seconds
    errors: int = 0  # the harness raised while running this lane

    def to_json(self) -> dict[str, Any]:
        return {
            "programs": self.programs,
            "ran": self.ran,
            "skipped": dict(self.skipped),
            "divergent": self.divergent,
            "kinds": dict(self.kinds),
            "flaky": dict(self.flaky),
            "counters": dict(self.counters),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "errors": self.errors,
        }


@dataclasses.dataclass
class CampaignStats:
    explored: int = 0
    shrink_runs: int = 0
    cached: int = 0  # candidates answered from the worker's verdict cache
    lanes: dict[str, LaneStats] = dataclasses.field(default_factory=dict)
    families: Counter = dataclasses.field(default_factory=Counter)  # op family -> uses
    family_programs: Counter = dataclasses.field(default_factory=Counter)  # -> programs using it
    decisions: Counter = dataclasses.field(default_factory=Counter)  # decision kind -> count
    time: Counter = dataclasses.field(default_factory=Counter)  # where wall time went

    def lane(self, key: str) -> LaneStats:
        return self.lanes.setdefault(key, LaneStats())

    def add_example(self, msg: dict[str, Any]) -> None:
        """Fold one worker `example` message in."""
        self.time["generation"] += msg.get("gen_s", 0.0)
        if msg.get("cached"):
            self.cached += 1
            return
        if msg.get("phase") == "shrink":
            self.shrink_runs += 1
            self.time["shrinking"] += msg.get("run_s", 0.0)
            return
        self.explored += 1
        self.families.update(msg.get("families", {}))
        self.family_programs.update({f: 1 for f in msg.get("families", {})})
        self.decisions.update(msg.get("decisions", {}))
        for key, rec in msg.get("lanes", {}).items():
            st = self.lane(key)
            st.programs += 1
            if rec.get("error"):
                st.errors += 1
            elif rec.get("skipped"):
                st.skipped[skip_category(rec["skipped"])] += 1
            else:
                st.ran += 1
            kinds = set(rec.get("kinds", ()))
            if kinds:
                st.divergent += 1
            st.kinds.update(kinds)
            st.flaky.update(set(rec.get("flaky", ())))
            st.counters.update(rec.get("counters", {}))
            for stage, secs in rec.get("timings", {}).items():
                st.timings[stage] += secs
                self.time[f"{key} {stage}"] += secs

    def to_json(self) -> dict[str, Any]:
        return {
            "explored": self.explored,
            "shrink_runs": self.shrink_runs,
            "cached": self.cached,
            "lanes": {k: v.to_json() for k, v in sorted(self.lanes.items())},
            "families": dict(self.families.most_common()),
            "family_programs": dict(self.family_programs.most_common()),
            "decisions": dict(self.decisions.most_common()),
            "time": {k: round(v, 3) for k, v in self.time.most_common()},
        }
