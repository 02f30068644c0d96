"""The Ray engine: the nightly campaign on a Ray cluster (`python -m fuzz nightly --engine
ray [--ray-address auto|HOST:PORT]`). Needs the `cluster` extra (`pip install .[cluster]`).

The head process (this one) keeps the supervisor (fuzz.campaign.supervisor), so findings,
triage, the corpus and the report stay where they are with the local engine. Each worker
slot is a Ray actor running the same `fuzz.campaign.worker.Worker`; its messages go into
one Ray queue (an actor that needs no CPU), tagged with the slot and incarnation, and
`Queue.put` returns only once the queue holds the message: a `Start` is on record before
its program runs. Then, as with local processes:

* an actor that dies (segfault, abort, OOM) is noticed through its pending `loop` call,
  its queued messages are read, the program in flight becomes a `<lane>.crash` finding,
  and a new actor takes the slot while the budget lasts;
* an actor whose program runs past `--example-timeout` is killed (`ray.kill`) and its
  program recorded as a hang;
* crash confirmation is a Ray task (no retries) on a node with the crash's device: a
  task whose worker dies or hangs again reproduces the crash.

Devices are Ray resources: with `--devices cpu,cuda`, one slot per GPU of the cluster
(at most `--workers`) runs the CUDA lanes on an actor holding `num_gpus=1`, so CUDA work is
only ever placed on nodes with a GPU; the other slots run the CPU lanes, one CPU each.
`report.json`'s `nodes` says which node explored what.

Actors import the harness from the head's checkout (PYTHONPATH in the runtime
environment): every node must see the same code and Hypothesis version, which the
supervisor checks (a worker with another harness stamp is refused).
"""

from __future__ import annotations

import os
import tempfile
import traceback
from pathlib import Path
from typing import Any

import ray
from ray.util.queue import Empty, Queue

from fuzz.campaign.engines import EngineError, supervise
from fuzz.campaign.protocol import Bye, HarnessError, WorkerConfig
from fuzz.campaign.supervisor import Slot, Supervisor
from fuzz.errors import error_text

ROOT = Path(__file__).resolve().parents[2]
POLL_S = 0.2
FORWARDED_ENV = ("FUZZ_", "HYPOTHESIS_", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")


def runtime_env() -> dict[str, Any]:
    """What every actor and task needs: the harness importable, the caller's FUZZ_* and
    HYPOTHESIS_* settings, one intra-op thread."""
    env = {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
    path = os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    )
    return {"env_vars": env | {"PYTHONPATH": path, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}}


@ray.remote(max_restarts=0, max_task_retries=0)
class WorkerActor:
    """One worker incarnation: runs `Worker.loop()` and reports through the queue."""

    def loop(self, config: dict, queue: Queue, tag: tuple[int, int]) -> str:
        # Imported here, in the actor's process: the worker pulls in torch and the lanes,
        # which the head (which only supervises) never needs.
        from fuzz.campaign.worker import Worker

        node = f"{os.uname().nodename}/{ray.get_runtime_context().get_node_id()[:8]}"

        def send(message) -> None:
            queue.put((tag, message))

        worker = Worker(WorkerConfig.from_json(config), send, node=node)
        try:
            worker.loop()
        except Exception as e:
            send(HarnessError(f"worker failed: {error_text(e, None)}\n{traceback.format_exc()}"))
            send(Bye("error", worker.explored))
            return "error"
        return "done"


@ray.remote(max_retries=0)
def rerun(
    source: str, lane: str, device: str, fixes: str, plugins: list[str], speedups: str = "on"
) -> str:
    """Run one program on one lane in this task's worker process (crash confirmation: if
    the process dies, the task fails with WorkerCrashedError). Imports as in `loop`."""
    from fuzz.case import case_from_source
    from fuzz.outcome import run_lane
    from fuzz.prepare import prepare

    prepare(fixes, plugins, speedups)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "confirm.py"
        path.write_text(source)
        return run_lane(case_from_source(source, "confirm", path), lane, device).status


class RayEngine:
    """Ray actors on a cluster (`--engine ray`): `open` joins the cluster at `address` (None:
    starts a Ray instance on this machine), `close` leaves it."""

    name = "ray"

    def __init__(self, address: str | None = None):
        self.address = address
        self.resources: dict[str, float] = {}

    def open(self) -> int:
        """Join the cluster (its runtime environment carries this process's FUZZ_* and
        HYPOTHESIS_* settings, so open after they are set); `--workers auto` is its CPUs."""
        try:
            if not ray.is_initialized():
                ray.init(
                    address=self.address,
                    runtime_env=runtime_env(),
                    include_dashboard=False,
                    logging_level="WARNING",
                    log_to_driver=False,
                )
            self.resources = ray.cluster_resources()
        except Exception as e:
            raise EngineError(f"--engine ray: cannot reach the cluster {self.address}: {e}") from e
        return int(self.resources.get("CPU", 1))

    def run(self, sup: Supervisor) -> None:
        supervise(sup, RayWorkers(sup, self.resources))

    def confirm(self, sup: Supervisor, source: str, lane: str, device: str) -> tuple:
        """Re-run a crash as a Ray task: (1: it died again | 0: it ran, whether it hung)."""
        s = sup.settings
        ref = rerun.options(num_gpus=1 if device == "cuda" else 0).remote(
            source, lane, device, s.fixes, list(s.plugins), s.speedups
        )
        done, _ = ray.wait([ref], timeout=s.example_timeout + 60)
        if not done:
            ray.cancel(ref, force=True)
            return None, True
        try:
            ray.get(ref)
        except ray.exceptions.RayError:
            return 1, False
        return 0, False

    def close(self) -> None:
        ray.shutdown()


class RayWorkers:
    """One campaign's worker actors (fuzz.campaign.engines.Workers)."""

    poll_s = POLL_S
    grace_s = None  # ray.kill needs no second, harder signal

    def __init__(self, sup: Supervisor, resources: dict[str, float]):
        self.sup = sup
        self.queue = Queue(actor_options={"num_cpus": 0})
        self.actors: dict[int, Any] = {}
        self.refs: dict[int, Any] = {}
        self.gpus = int(resources.get("GPU", 0))
        devices = sup.settings.devices
        if "cuda" in devices:
            cpu_devices = tuple(d for d in devices if d != "cuda")
            gpu_slots = min(self.gpus, len(sup.slots))
            for i, slot in enumerate(sup.slots):
                slot.devices = ("cuda",) if i < gpu_slots else (cpu_devices or ("cpu",))
            if not self.gpus:
                for lane in sup.settings.lanes:
                    sup.unavailable[f"{lane}/cuda"] = "no CUDA device: no GPU in the Ray cluster"

    def start(self, slot: Slot) -> None:
        config = self.sup.config_for(slot)
        gpu = "cuda" in config.devices
        actor = WorkerActor.options(num_cpus=1, num_gpus=1 if gpu else 0).remote()
        self.actors[slot.index] = actor
        self.refs[slot.index] = actor.loop.remote(
            config.to_json(), self.queue, (slot.index, slot.incarnation)
        )
        self.sup.started(slot)

    def drain(self) -> None:
        """Hand every queued message of a current incarnation to the supervisor."""
        while True:
            try:
                items = self.queue.get_nowait_batch(max(1, self.queue.qsize()))
            except Empty:
                return
            for (index, incarnation), message in items:
                slot = self.sup.slots[index]
                if incarnation == slot.incarnation:
                    self.sup.on_message(slot, message)

    def reap(self, slot: Slot, hung: bool = False) -> None:
        ref = self.refs.pop(slot.index)
        actor = self.actors.pop(slot.index)
        returncode: int | None = 0
        if hung:
            ray.kill(actor, no_restart=True)
            returncode = None
        else:
            try:
                ray.get(ref)
            except ray.exceptions.RayError as e:
                returncode = None  # the actor died: Ray does not say by which signal
                self.sup.event(f"{slot.name} died: {str(e).splitlines()[0][:200]}")
        self.drain()
        if self.sup.ended(slot, returncode, hung):
            self.start(slot)

    def running(self) -> bool:
        return bool(self.refs)

    def wait(self, timeout: float) -> None:
        done, _ = ray.wait(list(self.refs.values()), num_returns=len(self.refs), timeout=timeout)
        self.drain()
        for slot in self.sup.slots:
            if slot.index in self.refs and self.refs[slot.index] in done:
                self.reap(slot)

    def has_worker(self, slot: Slot) -> bool:
        # An actor outlives its loop call until reaped; a refused one is killed until then.
        return slot.index in self.actors

    def kill(self, slot: Slot) -> None:
        ray.kill(self.actors[slot.index], no_restart=True)

    def kill_hung(self, slot: Slot) -> None:
        self.reap(slot, hung=True)

    def stop_all(self) -> None:
        self.kill_all()

    def kill_all(self) -> None:
        for actor in self.actors.values():
            ray.kill(actor, no_restart=True)
