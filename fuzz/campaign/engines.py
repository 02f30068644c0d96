"""Engines: what runs a campaign's workers, and the one poll-loop policy every engine shares.

The command layer (fuzz/__main__.py) builds the engine the user picks and passes it to
`fuzz.campaign.nightly.main`, as Hypothesis lets the user build the example database and
pass it in: the campaign never imports an engine it was not given (import-linter forbids
`fuzz.campaign` importing `fuzz.extra`, where the optional ones live). An engine's life:

    workers_auto = engine.open()        # join what it runs on (a Ray cluster); what
                                        # `--workers auto` means there
    engine.run(sup)                     # run the supervisor's workers until none is left
    engine.confirm(sup, source, lane, device)   # triage re-runs a crash, fresh process
    engine.close()                      # leave what open joined (always called)

Engines: fuzz.campaign.local.LocalEngine (processes on this machine, the default) and
fuzz.extra.ray_engine.RayEngine (Ray actors on a cluster).

Both run their workers through `supervise`: the engine's `Workers` starts, waits on and
kills workers its own way, and `supervise` decides when — a worker the supervisor refused
(another harness) is killed, one whose program is overdue is killed as a hang, every one
is stopped past the hard deadline (killed outright `grace_s` later), and Ctrl-C kills them
all and records the interruption.
"""

from __future__ import annotations

import sys
import time
from typing import Protocol

from fuzz.campaign.supervisor import Slot, Supervisor
from fuzz.errors import FuzzError


class EngineError(FuzzError, RuntimeError):
    """The chosen engine cannot run here (a missing extra, an unreachable cluster); the
    message says why. The nightly command prints it and exits 2."""


class Engine(Protocol):
    name: str  # what `--engine` calls it; report.json's "engine"

    def open(self) -> int:
        """Get ready to run workers (join a cluster); how many workers `--workers auto`
        means on it. Raises EngineError when it cannot."""
        ...

    def run(self, sup: Supervisor) -> None:
        """Run the supervisor's worker slots until none is left to run."""
        ...

    def confirm(self, sup: Supervisor, source: str, lane: str, device: str) -> tuple:
        """Re-run one crashed program on one lane in a fresh process: (returncode, hung)
        and, where the engine has them, the re-run's stderr and announced facts
        (fuzz.campaign.triage.Rerun)."""
        ...

    def close(self) -> None:
        """Leave what `open` joined; called once the campaign's triage is done, and when
        it raised."""
        ...


class Workers(Protocol):
    """An engine's running workers, as `supervise` drives them."""

    poll_s: float  # how long one `wait` may block
    grace_s: float | None  # after the hard deadline's `stop_all`, when to `kill_all`

    def start(self, slot: Slot) -> None:
        """Launch the slot's next worker (after `sup.config_for(slot)`; `sup.started`)."""

    def running(self) -> bool:
        """Whether any worker is still running (or not yet reaped)."""

    def wait(self, timeout: float) -> None:
        """Wait up to `timeout` for messages and ended workers: hand every message to the
        supervisor in order, and reap every worker that ended (`sup.ended`, which may ask
        for the slot's next incarnation: `start` it)."""

    def has_worker(self, slot: Slot) -> bool:
        """Whether the slot has a worker this engine has not reaped yet."""

    def kill(self, slot: Slot) -> None:
        """Kill the slot's worker now; `wait` reaps it later."""

    def kill_hung(self, slot: Slot) -> None:
        """Kill the slot's worker and reap it as hung at once."""

    def stop_all(self) -> None:
        """The hard deadline: ask every worker to stop (the kindest way the engine has)."""

    def kill_all(self) -> None:
        """Kill every worker now."""


def supervise(sup: Supervisor, workers: Workers) -> None:
    """Start every slot's worker and run the poll loop until no worker is left."""
    for slot in sup.slots:
        workers.start(slot)
    stopped_at: float | None = None  # when the hard deadline's stop went out
    try:
        while workers.running():
            workers.wait(workers.poll_s)
            stopped_at = step(sup, workers, stopped_at)
    except KeyboardInterrupt:
        sup.stopping = True
        sup.error("interrupted")
        workers.kill_all()
    if sup.tty:
        sys.stderr.write("\r\033[K")


def step(sup: Supervisor, workers: Workers, stopped_at: float | None) -> float | None:
    """One pass of the policy, after the engine handed over what its workers said;
    returns when the hard deadline's stop went out (None: not yet)."""
    for slot in sup.slots:
        if slot.finished and workers.has_worker(slot):
            workers.kill(slot)  # refused by the supervisor (another harness version)
    for slot in sup.overdue():
        if workers.has_worker(slot):
            workers.kill_hung(slot)
    if sup.past_hard_deadline() and not sup.stopping:
        sup.stopping = True
        sup.event("hard deadline: stopping the workers")
        workers.stop_all()
        stopped_at = time.time()
    grace = workers.grace_s
    if stopped_at is not None and grace is not None and time.time() > stopped_at + grace:
        workers.kill_all()
    sup.progress()
    return stopped_at
