"""The figures a campaign aggregates, as plain JSON-able dicts.

A worker sends one `Example` message per program it ran; the supervisor folds them into
a `CampaignStats`. Lane figures count *explored* programs only (what generation produced);
programs run while shrinking are counted, and their time booked, separately, so skip
rates and coverage describe the generator, not the shrinker.

Coverage is per lane and device, over the programs that lane actually ran: op families,
input kinds (number inputs, each input dtype, size-0 dims), shape decisions, and the ops
a lane could not run (its `unsupported:<op>` counters).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from fuzz.campaign.protocol import Example


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
    known: Counter = dataclasses.field(default_factory=Counter)  # kind -> programs (registered)
    known_as: Counter = dataclasses.field(default_factory=Counter)  # corpus case -> programs
    buckets: Counter = dataclasses.field(default_factory=Counter)  # new bucket -> programs
    families: Counter = dataclasses.field(default_factory=Counter)  # coverage of ran programs
    inputs: Counter = dataclasses.field(default_factory=Counter)
    decisions: Counter = dataclasses.field(default_factory=Counter)
    dynamic: int = 0  # ran programs with a data-dependent op, a custom op or torch.cond

    def coverage(self) -> dict[str, Any]:
        unsupported = {
            k.split(":", 1)[1]: v for k, v in self.counters.items() if k.startswith("unsupported:")
        }
        return {
            "programs": self.ran,
            "families": dict(self.families.most_common()),
            "inputs": dict(sorted(self.inputs.items())),
            "decisions": dict(self.decisions.most_common()),
            "unsupported": unsupported,
            "dynamic": self.dynamic,
        }

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
            "known": dict(self.known),
            "known_as": dict(self.known_as.most_common()),
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

    def add_example(self, msg: Example) -> None:
        """Fold one worker `Example` message in."""
        self.time["generation"] += msg.gen_s
        if msg.cached:
            self.cached += 1
            return
        if msg.phase == "shrink":
            self.shrink_runs += 1
            self.time["shrinking"] += msg.run_s
            return
        self.explored += 1
        families = msg.coverage.get("families", {})
        self.families.update(families)
        self.family_programs.update({f: 1 for f in families})
        self.decisions.update(msg.coverage.get("decisions", {}))
        for key, rec in msg.lanes.items():
            st = self.lane(key)
            st.programs += 1
            if rec.get("error"):
                st.errors += 1
            elif rec.get("skipped"):
                st.skipped[skip_category(rec["skipped"])] += 1
            else:
                st.ran += 1
                st.families.update(families.keys())
                st.inputs.update(k for k, v in msg.coverage.get("inputs", {}).items() if v)
                st.decisions.update(msg.coverage.get("decisions", {}))
                st.dynamic += int(msg.coverage.get("dynamic", 0))
            kinds = set(rec.get("kinds", ()))
            if kinds:
                st.divergent += 1
            st.kinds.update(kinds)
            st.known.update(set(rec.get("known", ())))
            st.known_as.update(set(rec.get("known_as", ())))
            st.buckets.update(set(rec.get("buckets", ())))
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

    def coverage(self) -> dict[str, Any]:
        """report.json's "coverage" block: per "lane/device", over the programs it ran."""
        return {k: v.coverage() for k, v in sorted(self.lanes.items())}

    def buckets(self) -> Counter:
        """New bucket -> explored programs that showed it (all lanes)."""
        return sum((st.buckets for st in self.lanes.values()), Counter())
