"""One campaign worker: a Hypothesis loop over generated cases, reporting to its supervisor.

The same `Worker` runs in a local worker process (`python -m fuzz.campaign.worker CONFIG
FD`: messages as JSON lines on pipe FD) and inside a Ray actor (fuzz/extra/ray_engine.py);
only `send` differs. It applies the fixes switch, imports plugins, then runs *rounds*: one
`@given(cases(lanes=...))` run each, with the nightly profile, `ROUND_EXAMPLES` examples
(short rounds: fuzz/campaign/rounds.py says why) and a seed derived from the campaign
seed, slot, incarnation and round. Per example it

1. sends `Start` (with the program's source) and `LaneStart` before each lane: if the
   process dies or hangs, the supervisor knows the program and the lane;
2. runs the case on the lanes it is for (fuzz.campaign.example): while exploring,
   divergences of registered bugs are marked known and cost nothing more (never
   confirmed, annotated or shrunk); the others are confirmed and annotated; then sends
   `Example` (per lane: kinds, known kinds, buckets, counters, timings, skips; coverage);
3. for a divergence in a bucket (fuzz.buckets) neither known nor shrunk in this campaign,
   raises an exception specific to that bucket, so Hypothesis shrinks towards the smallest
   program showing it (`report_multiple_bugs=False`; while shrinking only that divergence's
   lane and device run, and a candidate whose divergence of the bucket only a registered
   bug's pattern accounts for does not count: `leads`). Each such example goes out as a
   `Candidate`, so a worker killed mid-shrink still leaves its best program. The final
   one is reduced to a 1-minimal program (fuzz.reduce, in the shrink budget's remaining
   time) and sent with `final=True`; its buckets are suppressed for the following rounds.

Time: exploring stops `explore_s` seconds after the worker started (or at its quota); a
shrink stops `shrink_budget` seconds after its bug was found (ShrinkCutShort: the best
candidate so far becomes the finding). Sources already judged are answered from a verdict
cache (calls are seeded: the same source always gives the same result).
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from hypothesis import Phase, given, seed, settings

import fixes
import fuzz.settings  # noqa: F401  (registers the Hypothesis profiles)
from fuzz.backends.registry import lane_devices
from fuzz.campaign.database import open_database
from fuzz.campaign.example import leads, program_coverage, reduce_finding, run_example
from fuzz.campaign.focus import Focus
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
    encode,
    sha,
)
from fuzz.campaign.rounds import (
    EMPTY_ROUNDS_LIMIT,
    ROUND_EXAMPLES,
    BudgetExhausted,
    Diverged,
    ShrinkCutShort,
    exception_for,
)
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.errors import error_text
from fuzz.prepare import (
    install_compat,
    install_speedups,
    lane_unavailable,
    prepare,
    settle_long_lived_objects,
)
from fuzz.strategies import GeneratedCase, cases


class Worker:
    def __init__(
        self, config: WorkerConfig, send: Callable[[Message], None], node: str | None = None
    ):
        self.cfg, self.send = config, send
        self.node = node or socket.gethostname()  # how reports name where it ran
        self.started = time.time()
        self.explore_deadline = self.started + config.explore_s
        self.hard_deadline = self.started + config.hard_s
        # (source, where) -> None (no divergence) or the payload of its new divergences
        self.verdicts: dict[tuple[str, tuple], dict | None] = {}
        self.suppressed: set[str] = set(config.suppressed)
        self.skip_sources = set(config.skip_sources)
        self.index = CorpusIndex.of(DirectoryCorpus(c) for c in config.corpus)
        self.explored = 0
        self.n = 0
        self.phase = "explore"
        self.shrink_deadline = float("inf")
        self.primary: str | None = None
        self.primary_where: tuple[tuple[str, str], ...] = ()
        self.best: dict | None = None
        self.last_return = time.perf_counter()
        self.errors_sent: set[str] = set()
        self.unavailable: dict[str, str] = {}
        # The ops drawn more often (fuzz/campaign/focus.py); moves between rounds.
        self.focus = Focus(config.lanes, derive_seed(config.seed, 1), config.op_focus)

    def harness_error(self, text: str) -> None:
        key = text.splitlines()[0][:200] if text else "?"
        if key not in self.errors_sent and len(self.errors_sent) < 20:
            self.errors_sent.add(key)
            self.send(HarnessError(text[-4000:]))

    def setup(self) -> None:
        active = prepare(self.cfg.fixes, self.cfg.plugins, self.cfg.speedups)
        for lane, device in lane_devices(self.cfg.lanes, self.cfg.devices):
            if why := lane_unavailable(lane, device):
                self.unavailable[f"{lane}/{device}"] = why
        compat = install_compat(self.cfg.lanes)
        speedups = install_speedups(self.cfg.lanes)
        settle_long_lived_objects()  # the stacks are imported: out of the GC's way
        self.send(
            Hello(
                os.getpid(),
                self.node,
                active,
                fixes.package_versions(),
                self.unavailable,
                self.cfg.harness,
                speedups,
                compat,
            )
        )

    def example(self, generated: GeneratedCase) -> None:
        gen_s = time.perf_counter() - self.last_return
        try:
            self._example(generated, gen_s)
        finally:
            self.last_return = time.perf_counter()

    def _example(self, generated: GeneratedCase, gen_s: float) -> None:
        source = generated.source
        now = time.time()
        if self.phase == "explore":
            quota = self.cfg.quota
            if now >= self.explore_deadline or (quota is not None and self.explored >= quota):
                raise BudgetExhausted()
        elif now >= self.shrink_deadline:
            raise ShrinkCutShort()
        where = self.where(generated)
        verdict = self.verdicts.get((source, where), ...)
        if verdict is not ...:
            # Judged before (calls are seeded, so the result would be the same).
            self.send(Example(self.n, self.phase, gen_s, cached=True))
            if verdict is not None:
                self._diverged(verdict, announce=False)
            return
        digest = sha(source)
        if digest in self.skip_sources:
            # This program crashed an earlier incarnation: it is on record already.
            self.verdicts[(source, where)] = None
            return
        if self.phase == "explore":
            self.explored += 1
        new = self.run(generated, where, self.phase, gen_s)
        if self.phase == "explore":
            self.focus.explored_program((n.op for n in generated.program.nodes), generated.lane)
        if not new:
            self.verdicts[(source, where)] = None
            return
        ops = [n.op for n in generated.program.nodes]
        payload = {"source": source, "divergences": new, "ops": ops, "generated": generated}
        self.verdicts[(source, where)] = payload
        self._diverged(payload, announce=True)

    def run(self, generated: GeneratedCase, where, phase: str, gen_s: float = 0.0) -> list[dict]:
        """Run one program on `where`, announced (Start) and reported (Example); returns
        its new divergences (dicts with their bucket)."""
        self.n += 1
        self.send(Start(self.n, phase, sha(generated.source), generated.source))
        start = time.perf_counter()
        lanes, new = self.run_lanes(generated, where)
        self.send(
            Example(
                self.n,
                phase,
                gen_s,
                time.perf_counter() - start,
                lanes=lanes,
                coverage=program_coverage(generated),
            )
        )
        return new

    def _diverged(self, payload: dict, announce: bool) -> None:
        """Raise for a bucket not yet shrunk (the one being shrunk, when this example shows
        it), so Hypothesis shrinks it; return quietly when every bucket already was."""
        shrinking = self.primary if self.phase == "shrink" else None
        fresh = leads(payload["divergences"], self.suppressed, shrinking)
        if not fresh:
            return
        bucket = self.primary if self.primary in fresh else fresh[0]
        payload = dict(payload, bucket=bucket)
        if self.phase == "explore":  # a shrink's start is always announced (time is booked)
            self.phase, self.primary, announce = "shrink", bucket, True
            d = next(d for d in payload["divergences"] if d["bucket"] == bucket)
            self.primary_where = ((d["kind"].split(".", 1)[0], d["device"]),)
            self.shrink_deadline = min(time.time() + self.cfg.shrink_budget, self.hard_deadline)
        if bucket == self.primary:
            self.best = payload  # Hypothesis only accepts improvements: the latest is the best
        if announce:
            self.send(
                Candidate(
                    bucket,
                    False,
                    self.phase,
                    payload["source"],
                    payload["divergences"],
                    payload["ops"],
                )
            )
        exc = exception_for(bucket)(bucket)
        exc.payload = payload
        raise exc

    def where(self, generated: GeneratedCase) -> tuple[tuple[str, str], ...]:
        """The (lane, device) pairs to run: while exploring, every pair the case is for;
        while shrinking, only the one whose divergence is being shrunk."""
        if self.phase == "shrink" and self.primary is not None:
            return self.primary_where
        return tuple(
            (lane, device)
            for lane, device in lane_devices(self.cfg.lanes, self.cfg.devices)
            if generated.case.runs_on(lane, device)
        )

    def run_lanes(self, generated: GeneratedCase, where) -> tuple[dict, list[dict]]:
        return run_example(
            generated,
            where,
            index=self.index,
            exploring=self.phase == "explore",
            case_seed=self.cfg.case_seed,
            unavailable=self.unavailable,
            on_lane=lambda lane, device: self.send(LaneStart(lane, device)),
            on_error=self.harness_error,
        )

    def run_round(self, round_no: int) -> str:
        cfg = self.cfg
        db = open_database(cfg.database)
        # The quota of explored programs is enforced by `_example` (BudgetExhausted), not
        # by max_examples: Hypothesis also counts duplicates that never run. The database's
        # failures are replayed once, by the first round.
        reuse = [Phase.reuse] if db is not None and round_no == 0 else []
        phases = [Phase.generate, Phase.shrink] + reuse
        self.phase, self.shrink_deadline = "explore", float("inf")
        self.primary, self.best = None, None
        self.focus.move_if_due()

        @settings(
            settings.get_profile("nightly"),
            max_examples=ROUND_EXAMPLES,
            database=db,
            report_multiple_bugs=False,
            phases=phases,
            print_blob=False,
            derandomize=False,
        )
        @seed(derive_seed(cfg.seed, round_no))
        @given(
            cases(lanes=cfg.lanes, max_ops=cfg.max_ops, max_calls=cfg.max_calls, focus=self.focus)
        )
        def nightly_example(generated):
            self.example(generated)

        self.last_return = time.perf_counter()
        try:
            nightly_example()
        except BudgetExhausted:
            return "budget"
        except Diverged as e:
            self.finding(e.payload, "yes")
            return "found"
        except ShrinkCutShort:
            self.finding(self.best, "cut short")
            return "found"
        except BaseException as e:  # noqa: BLE001 - Hypothesis' own errors, Flaky, ...
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            for x in getattr(e, "exceptions", ()):
                if isinstance(x, Diverged):
                    p = x.payload
                    self.send(
                        Candidate(
                            p["bucket"], False, self.phase, p["source"], p["divergences"], p["ops"]
                        )
                    )
                    self.suppressed.add(p["bucket"])
            self.harness_error(
                f"round {round_no}: Hypothesis raised {error_text(e, None)}\n"
                f"{traceback.format_exc(limit=-6)}"
            )
            return "error"
        return "exhausted"

    def finding(self, payload: dict, shrunk: str) -> None:
        """Report the end of a shrink (reduced to a 1-minimal program when time allows:
        fuzz.reduce), and stop raising for everything this program shows."""
        if shrunk == "yes" and payload.get("generated") is not None:
            payload, minimal = self.reduce(payload)
            shrunk = "yes, 1-minimal" if minimal else shrunk
        self.send(
            Candidate(
                payload["bucket"],
                True,
                "shrink",
                payload["source"],
                payload["divergences"],
                payload["ops"],
                shrunk,
            )
        )
        self.suppressed.update(d["bucket"] for d in payload["divergences"])
        self.suppressed.add(payload["bucket"])

    def reduce(self, payload: dict) -> tuple[dict, bool]:
        """The shrunk program, reduced in the shrink budget's remaining time (each
        candidate announced and reported like any shrink run)."""
        return reduce_finding(
            payload,
            self.primary_where[0][0],
            run=lambda candidate: self.run(candidate, self.primary_where, "shrink"),
            give_up=lambda: time.time() >= self.shrink_deadline,
        )

    def loop(self) -> None:
        self.setup()
        reason, errors, empty = "done", 0, 0
        for round_no in itertools.count():
            if time.time() >= self.explore_deadline:
                reason = "budget"
                break
            if self.cfg.quota is not None and self.explored >= self.cfg.quota:
                reason = "quota"
                break
            before = self.explored
            outcome = self.run_round(round_no)
            empty = empty + 1 if outcome == "exhausted" and self.explored == before else 0
            if empty >= EMPTY_ROUNDS_LIMIT:
                reason = "exhausted"  # Hypothesis found nothing new to try
                break
            if outcome == "budget":
                reason = "budget" if time.time() >= self.explore_deadline else "quota"
                break
            errors = errors + 1 if outcome == "error" else 0
            if errors >= 3:
                reason = "errors"
                break
        self.send(Bye(reason, self.explored))


def pipe_sender(fd: int) -> Callable[[Message], None]:
    """`send` for a local worker process: JSON lines on the pipe `fd`."""

    def send(message: Message) -> None:
        view = memoryview(encode(message))
        while view:
            view = view[os.write(fd, view) :]

    return send


def main(argv: list[str] | None = None) -> int:
    """`python -m fuzz.campaign.worker CONFIG.json FD`: one local worker process."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    config = WorkerConfig.from_json(json.loads(Path(argv[0]).read_text()))
    send = pipe_sender(int(argv[1]))
    worker = Worker(config, send)
    try:
        worker.loop()
    except Exception as e:
        send(HarnessError(f"worker failed: {error_text(e, None)}\n{traceback.format_exc()}"))
        send(Bye("error", worker.explored))
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
