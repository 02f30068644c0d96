"""The local engine: the campaign's workers as processes on this machine (the default).

Each slot's worker is `python -m fuzz.campaign.worker CONFIG.json FD`, in its own process
group, writing protocol messages as JSON lines to a pipe. `LocalWorkers` waits on all
pipes at once, hands each message to the supervisor, and starts the next incarnation of a
slot when the supervisor asks for one; when to kill a worker (overdue, refused, past the
hard deadline: SIGTERM, then SIGKILL 10 s later) is fuzz.campaign.engines.supervise's
policy. Worker logs go to OUT/logs/. A crash is confirmed in a fresh process on this
machine (fuzz.campaign.triage.local_rerun).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys

from fuzz.campaign.engines import supervise
from fuzz.campaign.protocol import ProtocolError, decode
from fuzz.campaign.supervisor import Slot, Supervisor, auto_workers
from fuzz.campaign.triage import local_rerun
from fuzz.procs import child_env, kill, tail

# Each worker runs tiny tensors in one thread: several intra-op threads per worker would
# only contend for the cores the other workers use.
SINGLE_THREADED = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class LocalEngine:
    """Worker processes on this machine (`--engine local`, the default)."""

    name = "local"

    def open(self) -> int:
        return auto_workers()

    def run(self, sup: Supervisor) -> None:
        for sub in ("logs", "workers"):
            (sup.settings.out / sub).mkdir(parents=True, exist_ok=True)
        supervise(sup, LocalWorkers(sup))

    def confirm(self, sup: Supervisor, source: str, lane: str, device: str) -> tuple:
        return local_rerun(sup)(source, lane, device)

    def close(self) -> None:
        pass


class LocalWorkers:
    """One campaign's worker processes (fuzz.campaign.engines.Workers)."""

    poll_s = 0.5
    grace_s = 10.0  # from the hard deadline's SIGTERM to SIGKILL

    def __init__(self, sup: Supervisor):
        self.sup = sup
        self.out = sup.settings.out
        self.sel = selectors.DefaultSelector()
        self.procs: dict[int, subprocess.Popen] = {}
        self.fds: dict[int, int] = {}
        self.bufs: dict[int, bytes] = {}

    def start(self, slot: Slot) -> None:
        config = self.sup.config_for(slot)
        cfg_path = self.out / "workers" / f"{slot.name}.json"
        cfg_path.write_text(json.dumps(config.to_json(), indent=1))
        read_fd, write_fd = os.pipe()
        env = child_env() | SINGLE_THREADED
        env.pop("HYPOTHESIS_PROFILE", None)
        with open(self.out / "logs" / f"{slot.name}.log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "fuzz.campaign.worker", str(cfg_path), str(write_fd)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                env=env,
                start_new_session=True,
            )
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self.procs[slot.index], self.fds[slot.index], self.bufs[slot.index] = proc, read_fd, b""
        self.sup.started(slot)
        self.sel.register(read_fd, selectors.EVENT_READ, slot)

    def read(self, slot: Slot, fd: int | None = None) -> bool:
        """Hand every complete message to the supervisor; False on EOF."""
        fd, eof = self.fds[slot.index] if fd is None else fd, False
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                eof = True
                break
            self.bufs[slot.index] += chunk
        *lines, self.bufs[slot.index] = self.bufs[slot.index].split(b"\n")
        for line in lines:
            if line.strip():
                try:
                    self.sup.on_message(slot, decode(line))
                except ProtocolError as e:
                    self.sup.error(f"{slot.name}: {e}")
        return not eof

    def reap(self, slot: Slot, hung: bool = False) -> None:
        """The worker is gone (or was killed): drain its pipe, tell the supervisor."""
        proc, fd = self.procs.pop(slot.index), self.fds[slot.index]
        rc = proc.wait()
        self.sel.unregister(fd)
        try:
            self.read(slot, fd)
        except OSError:
            pass
        os.close(fd)
        del self.fds[slot.index]
        if rc not in (0, None) and not hung and slot.bye is None:
            log = self.out / "logs" / f"{slot.name}.log"
            self.sup.event(f"{slot.name} ended with {rc}; log tail:\n{tail(log)}")
        if self.sup.ended(slot, rc, hung):
            self.start(slot)

    def running(self) -> bool:
        return bool(self.procs)

    def wait(self, timeout: float) -> None:
        for key, _ in self.sel.select(timeout=timeout):
            slot = key.data
            if slot.index in self.procs and not self.read(slot):
                self.reap(slot)
        for slot in list(self.sup.slots):
            proc = self.procs.get(slot.index)
            if proc is not None and proc.poll() is not None:
                self.reap(slot)

    def has_worker(self, slot: Slot) -> bool:
        return slot.index in self.procs

    def kill(self, slot: Slot) -> None:
        proc = self.procs[slot.index]
        if proc.poll() is None:
            kill(proc)

    def kill_hung(self, slot: Slot) -> None:
        kill(self.procs[slot.index])
        self.reap(slot, hung=True)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            kill(proc, signal.SIGTERM)

    def kill_all(self) -> None:
        for proc in self.procs.values():
            kill(proc)
