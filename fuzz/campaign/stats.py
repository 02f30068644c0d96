"""The figures a campaign aggregates, as plain JSON-able dicts.

A worker sends one `Example` message per program it ran; the supervisor folds them into
a `CampaignStats`. Lane figures count *explored* programs only (what generation produced);
programs run while shrinking are counted, and their time booked, separately, so skip
rates and coverage describe the generator, not the shrinker.

Coverage is per lane and device, over the programs that lane *checked*: op families,
input kinds (number inputs, each input dtype, size-0 dims), shape decisions, and the ops
a lane could not run (its `unsupported:<op>` counters). A program counts for a lane only
when the lane checked at least one of its calls (counters["calls-checked"]: a crash at
export, to_edge or on Thunder's first call, or every EXIR call outside the exported
contract, checks none); a per-call input class (size-0 dims: the worker's
coverage["calls"]) counts only when a checked call (the lane record's "checked_calls")
had it. Number inputs never count for EXIR: export specializes a Python number to the
example's value, so no number input varies there. A lane that reports no "calls-checked"
counter at all (a plugin or test lane) counts every program it ran; the EXIR lane counts
its checked calls in its checks, so a build that never reached them checked none.

Per lane, the programs with an oracle error (counters["oracle-error"]: a check of the
harness raised and was counted, fuzz/backends/exir/checks.py `guard`) and the ran
programs with no call checked are counted too: fuzz.campaign.report's blind spots read
them.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from fuzz import ops as op_catalogue
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
    # corpus case -> the shortest program recognised as it: no case file holds the programs
    # set aside as registered bugs, and a pattern that claims a new bug must be auditable
    known_examples: dict[str, str] = dataclasses.field(default_factory=dict)
    buckets: Counter = dataclasses.field(default_factory=Counter)  # new bucket -> programs
    families: Counter = dataclasses.field(default_factory=Counter)  # coverage of ran programs
    ops: Counter = dataclasses.field(default_factory=Counter)  # op name -> checked programs
    drawn: Counter = dataclasses.field(default_factory=Counter)  # op name -> drawn programs
    inputs: Counter = dataclasses.field(default_factory=Counter)
    decisions: Counter = dataclasses.field(default_factory=Counter)
    dynamic: int = 0  # checked programs with a data-dependent op, a custom op or torch.cond
    covered: int = 0  # ran programs with at least one call checked (what coverage is over)
    unchecked: int = 0  # ran programs of which no call was checked
    oracle_errors: int = 0  # programs with an oracle error (a check of the harness raised)

    def coverage(self) -> dict[str, Any]:
        unsupported = {
            k.split(":", 1)[1]: v for k, v in self.counters.items() if k.startswith("unsupported:")
        }
        return {
            "programs": self.covered,
            "ran": self.ran,
            "families": dict(self.families.most_common()),
            "ops": dict(self.ops.most_common()),
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
            "known_examples": dict(sorted(self.known_examples.items())),
            "covered": self.covered,
            "unchecked": self.unchecked,
            "oracle_error_programs": self.oracle_errors,
        }

    def cover(self, lane: str, rec: dict[str, Any], coverage: dict[str, Any]) -> None:
        """Count one ran program: for coverage only when the lane checked a call of it."""
        counters = rec.get("counters") or {}
        checked = counters.get("calls-checked", 0 if lane.startswith("exir/") else None)
        if checked == 0:
            self.unchecked += 1
            return
        self.covered += 1
        families = coverage.get("families", {})
        self.families.update(families.keys())
        self.ops.update(coverage.get("ops", {}).keys())
        inputs = {k for k, v in coverage.get("inputs", {}).items() if v}
        calls = rec.get("checked_calls")
        if calls is not None:  # per-call classes: only those a checked call had
            for k, flags in (coverage.get("calls") or {}).items():
                inputs.discard(k)
                if any(flags[i] for i in calls if 0 <= i < len(flags)):
                    inputs.add(k)
        if lane.startswith("exir/"):
            inputs.discard("number")  # specialized by export: one value, the example's
        self.inputs.update(inputs)
        self.decisions.update(coverage.get("decisions", {}))
        self.dynamic += int(coverage.get("dynamic", 0))


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

    def add_example(self, msg: Example, source: str | None = None) -> None:
        """Fold one worker `Example` message in (`source`: the program, from its `Start`)."""
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
            st.drawn.update(msg.coverage.get("ops", {}).keys())
            if rec.get("error"):
                st.errors += 1
            elif rec.get("skipped"):
                st.skipped[skip_category(rec["skipped"])] += 1
            else:
                st.ran += 1
                st.cover(key, rec, msg.coverage)
            kinds = set(rec.get("kinds", ()))
            if kinds:
                st.divergent += 1
            st.kinds.update(kinds)
            st.oracle_errors += int(bool((rec.get("counters") or {}).get("oracle-error")))
            st.known.update(set(rec.get("known", ())))
            st.known_as.update(set(rec.get("known_as", ())))
            for case in rec.get("known_as", ()) if source else ():
                if len(source) < len(st.known_examples.get(case, source + " ")):
                    st.known_examples[case] = source
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
        """report.json's "coverage" block: per "lane/device", over the programs it checked,
        with the lane's catalogue ops that no program drawn for it used ("never_drawn")."""
        out = {}
        for key, st in sorted(self.lanes.items()):
            lane = key.split("/", 1)[0]
            out[key] = st.coverage() | {
                "never_drawn": sorted(
                    op.name for op in op_catalogue.for_lanes([lane]) if op.name not in st.drawn
                )
            }
        return out

    def buckets(self) -> Counter:
        """New bucket -> explored programs that showed it (all lanes)."""
        return sum((st.buckets for st in self.lanes.values()), Counter())
