"""The engine seam of the campaign (fuzz.campaign.engines): the poll-loop policy every engine
shares, driven here through a recording `Workers`, and the nightly command running on the
engine it is handed (open, run, confirm, close) instead of picking one itself. The real
engines run in tests/stacks/campaign/test_nightly.py (local processes) and
tests/stacks/campaign/test_cluster.py (a two-node Ray cluster)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fuzz.__main__ import build_engine, build_parser
from fuzz.campaign import nightly
from fuzz.campaign.engines import EngineError, step, supervise
from fuzz.campaign.local import LocalEngine
from fuzz.campaign.protocol import Bye, Hello, LaneStart, Start
from fuzz.campaign.supervisor import CampaignSettings, Supervisor


def _supervisor(tmp_path: Path, **kw) -> Supervisor:
    base = dict(
        budget=60.0,
        lanes=("thunder",),
        devices=("cpu",),
        fixes="off",
        workers=2,
        seed=1,
        out=tmp_path,
        quiet=True,
    )
    return Supervisor(CampaignSettings(**(base | kw)))


class RecordingWorkers:
    """A `Workers` that records what the policy asked of it; `wait` runs a script."""

    poll_s = 0.0

    def __init__(self, sup: Supervisor, grace_s: float | None = 10.0, script=()):
        self.sup, self.grace_s, self.script = sup, grace_s, list(script)
        self.alive: set[int] = set()
        self.calls: list[tuple[str, int | None]] = []

    def start(self, slot):
        self.sup.started(slot)
        self.alive.add(slot.index)
        self.calls.append(("start", slot.index))

    def running(self):
        return bool(self.alive)

    def wait(self, timeout):
        if self.script:
            self.script.pop(0)(self)
        else:
            for index in sorted(self.alive):  # every worker says goodbye and exits
                self.alive.discard(index)
                self.sup.on_message(self.sup.slots[index], Bye("budget", 0))
                assert self.sup.ended(self.sup.slots[index], 0) is False

    def has_worker(self, slot):
        return slot.index in self.alive

    def kill(self, slot):
        self.calls.append(("kill", slot.index))

    def kill_hung(self, slot):
        self.calls.append(("kill_hung", slot.index))
        self.alive.discard(slot.index)
        self.sup.ended(slot, None, hung=True)

    def stop_all(self):
        self.calls.append(("stop_all", None))

    def kill_all(self):
        self.calls.append(("kill_all", None))


def _in_flight(sup: Supervisor, slot, started_ago: float) -> None:
    sup.on_message(slot, Hello(1, "node", {}, {}, {}, sup.harness))
    sup.on_message(slot, Start(1, "explore", "sha", "def program(x):\n    return (x,)\n"))
    sup.on_message(slot, LaneStart("thunder", "cpu"))
    slot.since = time.time() - started_ago


def test_an_overdue_program_is_killed_as_a_hang_and_only_that_one(tmp_path):
    sup = _supervisor(tmp_path, example_timeout=5.0)
    workers = RecordingWorkers(sup)
    for slot in sup.slots:
        workers.start(slot)
    _in_flight(sup, sup.slots[0], started_ago=6.0)
    _in_flight(sup, sup.slots[1], started_ago=1.0)
    assert step(sup, workers, None) is None
    assert ("kill_hung", 0) in workers.calls and ("kill_hung", 1) not in workers.calls
    assert sup.hangs == 1 and sup.slots[0].incarnation == 1


def test_a_refused_worker_is_killed_and_the_others_left_alone(tmp_path):
    sup = _supervisor(tmp_path)
    workers = RecordingWorkers(sup)
    for slot in sup.slots:
        workers.start(slot)
    sup.on_message(sup.slots[1], Hello(1, "node", {}, {}, {}, "another harness"))
    step(sup, workers, None)
    assert [c for c in workers.calls if c[0] == "kill"] == [("kill", 1)]


@pytest.mark.parametrize("grace_s", [10.0, None])
def test_past_the_hard_deadline_every_worker_is_stopped_then_killed_after_the_grace(
    tmp_path, grace_s
):
    sup = _supervisor(tmp_path)
    workers = RecordingWorkers(sup, grace_s=grace_s)
    sup.hard_deadline = time.time() - 1
    stopped_at = step(sup, workers, None)
    assert sup.stopping and stopped_at is not None
    assert workers.calls == [("stop_all", None)]
    assert any("hard deadline" in e for e in sup.events)
    assert step(sup, workers, stopped_at) == stopped_at  # within the grace: nothing more
    assert workers.calls == [("stop_all", None)]
    step(sup, workers, stopped_at - 11.0)
    assert workers.calls[1:] == ([("kill_all", None)] if grace_s else [])


def test_an_interrupt_kills_every_worker_and_is_recorded(tmp_path):
    def interrupt(_):
        raise KeyboardInterrupt

    sup = _supervisor(tmp_path)
    workers = RecordingWorkers(sup, script=[interrupt])
    supervise(sup, workers)
    assert workers.calls == [("start", 0), ("start", 1), ("kill_all", None)]
    assert sup.stopping and sup.errors == ["interrupted"]


def test_supervise_runs_until_every_worker_has_ended(tmp_path):
    sup = _supervisor(tmp_path)
    workers = RecordingWorkers(sup)
    supervise(sup, workers)
    assert not workers.alive and workers.calls == [("start", 0), ("start", 1)]
    assert all(slot.finished for slot in sup.slots) and not sup.errors


class RecordingEngine:
    """An engine that runs no worker: what the nightly command asks of it, in order."""

    name = "recording"

    def __init__(self, fail_open: bool = False, fail_run: bool = False):
        self.fail_open, self.fail_run = fail_open, fail_run
        self.calls: list[str] = []

    def open(self):
        self.calls.append("open")
        if self.fail_open:
            raise EngineError("no cluster here")
        return 3

    def run(self, sup):
        self.calls.append(f"run:{len(sup.slots)}")
        if self.fail_run:
            raise RuntimeError("engine broke")

    def confirm(self, sup, source, lane, device):
        self.calls.append("confirm")
        return 0, False

    def close(self):
        self.calls.append("close")


def _args(tmp_path: Path, *extra: str):
    return build_parser().parse_args(
        ["nightly", "--out", str(tmp_path / "out"), "--database", "none", "--lanes", "thunder"]
        + ["--fixes", "off", "--quiet", "--budget", "1", *extra]
    )


def test_the_nightly_command_runs_on_the_engine_it_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("FUZZ_SPEEDUPS", "on")  # nightly.main sets it for its children
    engine = RecordingEngine()
    rc = nightly.main(_args(tmp_path), engine)
    assert engine.calls == ["open", "run:3", "close"]  # --workers auto: what open said
    doc = (tmp_path / "out" / "report.json").read_text()
    assert '"engine": "recording"' in doc and rc in (0, 3)


def test_an_engine_that_cannot_open_is_a_usage_error_and_is_not_closed(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("FUZZ_SPEEDUPS", "on")
    engine = RecordingEngine(fail_open=True)
    assert nightly.main(_args(tmp_path, "--workers", "1"), engine) == 2
    assert engine.calls == ["open"]
    assert "error: no cluster here" in capsys.readouterr().err


def test_an_engine_is_closed_when_its_run_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("FUZZ_SPEEDUPS", "on")
    engine = RecordingEngine(fail_run=True)
    with pytest.raises(RuntimeError, match="engine broke"):
        nightly.main(_args(tmp_path, "--workers", "1"), engine)
    assert engine.calls == ["open", "run:1", "close"]


def test_the_command_layer_builds_the_local_engine_by_default(tmp_path):
    engine = build_engine(_args(tmp_path))
    assert isinstance(engine, LocalEngine) and engine.name == "local"
