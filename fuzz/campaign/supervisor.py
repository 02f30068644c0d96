"""The campaign supervisor: one campaign's state and decisions, whatever runs its workers.

An engine runs the workers and feeds the supervisor:

    config = sup.config_for(slot)        # a WorkerConfig for a new worker in that slot
    sup.started(slot)                    # the worker was launched
    sup.on_message(slot, message)        # every protocol message, in order
    sup.ended(slot, returncode, hung)    # the worker is gone -> whether to start another
    sup.overdue()                        # slots whose program ran past --example-timeout

Engines (fuzz.campaign.engines, whose `supervise` loop makes these calls): local worker
processes or Ray actors. The supervisor never runs a program, so no backend can take it
down. It

* keeps the figures (fuzz.campaign.stats), events and a live progress line;
* records crashes: a worker that dies (segfault, abort, OOM kill, `os._exit`) while a
  program is in flight, or that shows no result for `example_timeout` seconds (a hang:
  the engine kills it), is recorded as a `<lane>.crash` finding of the program its last
  `Start` named, and a new worker (next incarnation, new seed, told to skip that program)
  takes the slot while the budget lasts. Workers run with faulthandler on
  (fuzz.procs.child_env): where the worker's log (OUT/logs/, the local engine) holds its
  dump, the innermost frame goes into the crash (`data.facts.at`) and its bucket;
* keeps the best program per bucket (fuzz.buckets) that workers send, and the shrink time
  spent on each;
* refuses workers whose harness stamp differs from its own (same Hypothesis, same code).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fuzz import defaults
from fuzz.buckets import bucket_of
from fuzz.campaign.findings import Finding
from fuzz.campaign.protocol import (
    Bye,
    Candidate,
    Example,
    HarnessError,
    Hello,
    LaneStart,
    Message,
    Start,
    WorkerConfig,
    derive_seed,
    harness_stamp,
)
from fuzz.campaign.stats import CampaignStats
from fuzz.procs import crash_site, signal_name, tail

MAX_RESTARTS = 25  # per worker slot


@dataclasses.dataclass(frozen=True)
class CampaignSettings:
    """What `python -m fuzz nightly` was asked to do (fuzz/__main__.py documents each)."""

    budget: float
    lanes: tuple[str, ...]
    devices: tuple[str, ...]
    fixes: str
    workers: int
    seed: int
    out: Path
    plugins: tuple[str, ...] = ()
    max_examples: int | None = None
    example_timeout: float = defaults.EXAMPLE_TIMEOUT_S
    shrink_budget: float | None = None
    max_ops: int = defaults.MAX_OPS
    max_calls: int = defaults.MAX_CALLS
    database: str | None = None
    corpus: tuple[str, ...] = ("corpus",)
    into: str | None = None
    engine: str = "local"
    op_focus: bool = True
    quiet: bool = False
    speedups: str = defaults.SPEEDUPS_SWITCH  # fuzz/speedups.py


@dataclasses.dataclass
class Slot:
    index: int
    quota: int | None
    incarnation: int = 0
    explored: int = 0  # over all incarnations
    restarts: int = 0
    finished: bool = False
    started_at: float = 0.0
    host: str = ""
    bye: Bye | None = None
    current: Start | None = None  # the program in flight
    lane: tuple[str, str] | None = None  # (lane, device) in flight
    since: float = 0.0
    shrinking: str | None = None  # the bucket this worker is shrinking
    devices: tuple[str, ...] | None = None  # this slot's devices (default: the campaign's)

    @property
    def name(self) -> str:
        return f"worker-{self.index}.{self.incarnation}"


class Supervisor:
    def __init__(self, settings: CampaignSettings):
        self.settings = s = settings
        self.start = time.time()
        self.deadline = self.start + s.budget
        self.shrink_budget = s.shrink_budget or max(defaults.MIN_SHRINK_BUDGET_S, s.budget / 4)
        self.hard_deadline = self.deadline + self.shrink_budget + 30.0
        self.harness = harness_stamp()
        self.stats = CampaignStats()
        self.findings: dict[str, Finding] = {}
        self.shrink_seconds: Counter = Counter()  # bucket -> seconds spent shrinking it
        self.crash_sources: set[str] = set()
        self.errors: list[str] = []
        self.events: list[str] = []
        self.hello: Hello | None = None
        self.hosts: dict[str, Counter] = {}  # host -> {"lane/device": explored programs}
        self.unavailable: dict[str, str] = {}
        self.worker_seconds = 0.0
        self.startup_seconds = 0.0
        self.engine_startup_seconds = 0.0  # before the first worker: e.g. joining Ray
        self.crashes = 0
        self.hangs = 0
        self.unconfirmed: list[str] = []  # crash buckets triage did not re-run (too many)
        self.stopping = False
        self.tty = sys.stderr.isatty() and not s.quiet
        self.last_progress = 0.0
        n = s.workers
        if s.max_examples is not None:
            n = max(1, min(n, s.max_examples))
            quotas = [s.max_examples // n + (1 if i < s.max_examples % n else 0) for i in range(n)]
        else:
            quotas = [None] * n
        self.slots = [Slot(i, q) for i, q in enumerate(quotas)]

    # -- starting workers --------------------------------------------------------------
    def config_for(self, slot: Slot) -> WorkerConfig:
        s, now = self.settings, time.time()
        return WorkerConfig(
            slot=slot.index,
            incarnation=slot.incarnation,
            seed=derive_seed(s.seed, slot.index, slot.incarnation),
            fixes=s.fixes,
            lanes=s.lanes,
            devices=slot.devices or s.devices,
            explore_s=max(0.0, self.deadline - now),
            hard_s=max(0.0, self.hard_deadline - now),
            shrink_budget=self.shrink_budget,
            plugins=s.plugins,
            max_ops=s.max_ops,
            max_calls=s.max_calls,
            quota=None if slot.quota is None else max(0, slot.quota - slot.explored),
            database=s.database,
            corpus=tuple(s.corpus) + ((s.into,) if s.into else ()),
            skip_sources=tuple(sorted(self.crash_sources)),
            # Buckets already shrunk in this campaign: a new incarnation need not redo them.
            suppressed=tuple(sorted(b for b, f in self.findings.items() if f.final)),
            harness=self.harness,
            speedups=s.speedups,
            op_focus=s.op_focus,
        )

    def started(self, slot: Slot) -> None:
        slot.started_at = time.time()
        slot.current, slot.lane, slot.bye, slot.shrinking = None, None, None, None

    # -- messages ----------------------------------------------------------------------
    def on_message(self, slot: Slot, msg: Message) -> None:
        now = time.time()
        if isinstance(msg, Hello):
            self._hello(slot, msg, now)
        elif isinstance(msg, Start):
            slot.current, slot.lane, slot.since = msg, None, now
            if msg.phase == "explore":
                slot.explored += 1
        elif isinstance(msg, LaneStart):
            slot.lane, slot.since = (msg.lane, msg.device), now
        elif isinstance(msg, Example):
            source = slot.current.source if slot.current is not None else None
            if not msg.cached:
                slot.current, slot.lane = None, None
            if msg.phase == "shrink" and slot.shrinking is not None:
                self.shrink_seconds[slot.shrinking] += msg.run_s
            if msg.phase == "explore" and not msg.cached:
                host = self.hosts.setdefault(slot.host or "?", Counter())
                host.update(msg.lanes.keys())
            self.stats.add_example(msg, source)
        elif isinstance(msg, Candidate):
            if msg.phase == "shrink" or not msg.final:
                slot.shrinking = None if msg.final else msg.bucket
            self.add_finding(
                Finding(
                    msg.bucket,
                    msg.source,
                    msg.divergences,
                    msg.final,
                    slot.name,
                    ops=msg.ops,
                    shrunk=msg.shrunk,
                ),
                sighting=msg.phase == "explore",
            )
        elif isinstance(msg, HarnessError):
            self.error(f"{slot.name}: {msg.message}")
        elif isinstance(msg, Bye):
            slot.bye = msg

    def _hello(self, slot: Slot, msg: Hello, now: float) -> None:
        self.startup_seconds += now - slot.started_at
        slot.host = msg.host
        if msg.harness != self.harness:
            self.error(
                f"{slot.name} on {msg.host} runs another harness ({msg.harness}; the "
                f"supervisor has {self.harness}): every worker must run the same Hypothesis "
                "and harness code. Its results are not used."
            )
            slot.finished = True
            return
        self.hello = self.hello or msg
        for key, why in msg.unavailable.items():
            if key not in self.unavailable:
                self.unavailable[key] = why
                if "no CUDA device" not in why:
                    self.error(f"{key} cannot run: {why}")

    def add_finding(self, f: Finding, sighting: bool = True) -> None:
        old = self.findings.get(f.bucket)
        if not f.first_source:  # the first program seen for the bucket (before shrinking)
            f.first_source, f.first_divergences = (
                (old.first_source, old.first_divergences) if old else (f.source, f.divergences)
            )
        if old is None:
            self.findings[f.bucket] = f
            self.event(f"new bucket {f.bucket} ({f.worker})")
            return
        f.sightings = old.sightings + (1 if sighting else 0)
        if f.better_than(old) or (f.worker == old.worker and not old.final):
            self.findings[f.bucket] = f
        else:
            old.sightings = f.sightings

    def error(self, text: str) -> None:
        self.errors.append(text)
        self.event("harness error: " + text.splitlines()[0][:200] if text else "harness error")

    def event(self, text: str) -> None:
        stamp = time.time() - self.start
        self.events.append(f"{stamp:7.1f}s {text}")
        if self.settings.quiet:
            return
        if self.tty:
            sys.stderr.write("\r\033[K")
        sys.stderr.write(f"[{stamp:6.1f}s] {text}\n")
        sys.stderr.flush()

    # -- workers ending ----------------------------------------------------------------
    def overdue(self) -> list[Slot]:
        """Live slots whose program has run longer than the example timeout (hangs)."""
        now, limit = time.time(), self.settings.example_timeout
        return [
            s
            for s in self.slots
            if not s.finished and s.current is not None and now - s.since > limit
        ]

    def ended(self, slot: Slot, returncode: int | None, hung: bool = False) -> bool:
        """The slot's worker is gone (exited, died, or was killed for hanging): record it;
        returns whether the engine should start the slot's next incarnation."""
        self.worker_seconds += time.time() - slot.started_at
        current, bye = slot.current, slot.bye
        if slot.finished:  # refused at hello
            return False
        if self.stopping:
            slot.finished = True
            if current is not None:
                self.event(f"{slot.name} stopped in the middle of a program (hard deadline)")
            return False
        if bye is not None and current is None and not hung:
            if bye.reason == "error":
                self.error(f"{slot.name} stopped on an error")
            slot.finished = True
            return False
        if current is not None and slot.lane is not None:
            self.record_crash(slot, current, returncode, hung)
        elif current is not None:
            self.error(
                f"{slot.name} died ({signal_name(returncode)}) while running the eager "
                f"reference of this program:\n{current.source}"
            )
        else:
            self.error(f"{slot.name} exited with {signal_name(returncode)} between programs")
        if time.time() >= self.deadline or (slot.quota is not None and slot.explored >= slot.quota):
            slot.finished = True
            return False
        if slot.restarts >= MAX_RESTARTS:
            self.error(f"worker slot {slot.index} restarted {slot.restarts} times; giving up on it")
            slot.finished = True
            return False
        slot.restarts += 1
        slot.incarnation += 1
        return True

    def record_crash(self, slot: Slot, current: Start, rc: int | None, hung: bool) -> None:
        lane, device = slot.lane
        self.crash_sources.add(current.sha)
        if hung:
            self.hangs += 1
            how = (
                f"hang: no result after {self.settings.example_timeout:g} s; the worker was killed"
            )
        else:
            self.crashes += 1
            how = f"the worker process died ({signal_name(rc)}) while {lane} ran this program"
        kind = f"{lane}.crash"
        signal = "hang" if hung else signal_name(rc)
        site = {} if hung else self.crash_site_of(slot, current.source)
        d = {
            "kind": kind,
            "stage": "process",
            "details": how,
            "device": device,
            "data": {
                "returncode": rc,
                "phase": current.phase,
                "worker": slot.name,
                "signal": signal,
            },
            "lane": lane,
        }
        if site:
            d["data"]["facts"] = site
        bucket = bucket_of(d)
        self.add_finding(
            Finding(
                bucket,
                current.source,
                [d],
                final=False,
                worker=slot.name,
                crash=True,
            )
        )
        if current.phase == "explore":  # it ran (and ended) like any other program
            self.stats.explored += 1
            st = self.stats.lane(f"{lane}/{device}")
            st.programs += 1
            st.divergent += 1
            st.kinds[kind] += 1
            st.buckets[bucket] += 1

    def crash_site_of(self, slot: Slot, source: str) -> dict[str, Any]:
        """Where the slot's worker died, from faulthandler's dump in its log (the local
        engine's OUT/logs/<worker>.log; {} when there is none)."""
        return crash_site(tail(self.settings.out / "logs" / f"{slot.name}.log", 400), source)

    # -- time --------------------------------------------------------------------------
    def past_hard_deadline(self) -> bool:
        return time.time() > self.hard_deadline

    def live(self) -> list[Slot]:
        return [s for s in self.slots if not s.finished]

    def progress(self, force: bool = False) -> None:
        if self.settings.quiet:
            return
        now = time.time()
        if not force and now - self.last_progress < (0.5 if self.tty else 15.0):
            return
        self.last_progress = now
        wall, s = now - self.start, self.stats
        text = (
            f"[{wall:6.1f}s/{self.settings.budget:g}s] {s.explored} programs "
            f"({s.explored / max(wall, 1e-9):.2f}/s), {s.shrink_runs} shrink runs, "
            f"{len(self.findings)} bucket(s), {self.crashes} crash(es), {self.hangs} hang(s), "
            f"{len(self.live())} worker(s)"
        )
        sys.stderr.write(("\r\033[K" + text) if self.tty else (text + "\n"))
        sys.stderr.flush()


def auto_workers() -> int:
    """One worker per core, at most MAX_AUTO_WORKERS: a worker spends most of its time in
    one backend process (single-threaded tracing and planning), so cores bound throughput."""
    return max(1, min(defaults.MAX_AUTO_WORKERS, os.cpu_count() or 1))
