"""The nightly fuzz job: `python -m fuzz nightly [options]` (options: fuzz/__main__.py).

The parent never runs a program (so no backend can take it down). It starts `--workers` worker
processes (fuzz.campaign.worker, one Hypothesis loop each, seeds derived from
`--hypothesis-seed`), reads their JSON-lines messages over a pipe, and

* keeps the figures (fuzz.campaign.stats) and a live progress line (TTY) or plain
  progress lines (otherwise);
* isolates crashes: a worker that dies (segfault, abort, OOM kill, `os._exit`) while a
  program is in flight, or that shows no result for `--example-timeout` seconds (a hang:
  the parent kills it), is recorded as a `<lane>.crash` divergence of the program in its
  scratch file, and a new worker (next incarnation, new seed, told to skip that program)
  takes its place until the budget is spent;
* collects findings: per (kind, stage kind, fingerprint) the best program a worker sent
  (the final one of a finished shrink, else the smallest candidate so far);
* at the end confirms each crash in a fresh process (a crash that does not reproduce is
  reported as flaky, not filed), computes signatures (fuzz.signature), deduplicates them
  against the corpus (`--corpus`, default corpus/; plus `--into`) and this run, files
  every finding with a new signature as a case file (`OUT/cases/` or `--into`; never
  overwriting), and writes OUT/report.json and OUT/report.md (fuzz.report).

Exit status: 0 when nothing new diverged, 1 when something did, 2 on harness errors
(a lane that cannot be imported, a worker or the harness raising, bad options); 2 wins.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fuzz.campaign.findings import render_finding
from fuzz.campaign.stats import CampaignStats
from fuzz.campaign.worker import derive_seed, sha
from fuzz.corpus import CorpusIndex, DirectoryCorpus, ReadOnlyCorpus, safe_name
from fuzz.signature import Signature, signature

ROOT = Path(__file__).resolve().parents[2]
MAX_RESTARTS = 25  # per worker slot
MAX_CONFIRMATIONS = 8


def auto_workers() -> int:
    """Half the cores, at least 1, at most 8: each worker is a whole PyTorch process."""
    return max(1, min(8, (os.cpu_count() or 2) // 2))


@dataclasses.dataclass
class Finding:
    item: tuple[str, str, str]
    source: str
    divergences: list[dict[str, Any]]
    final: bool
    worker: str
    crash: bool = False
    shrunk: str = ""  # yes | cut short | "" (not finished)
    ops: list[str] = dataclasses.field(default_factory=list)
    sightings: int = 1
    # filled at the end
    status: str = ""  # new | known | duplicate | flaky
    path: str | None = None
    known_as: list[str] = dataclasses.field(default_factory=list)
    signatures: list[Signature] = dataclasses.field(default_factory=list)
    sig_status: dict[str, str] = dataclasses.field(
        default_factory=dict
    )  # digest -> new|known|duplicate
    confirmation: str = ""

    def shrunk_text(self) -> str:
        if self.crash:
            return "no (the process died on it)"
        if self.final and self.shrunk == "yes":
            return "yes"
        return "partly (shrink budget spent)" if self.final else "partly (shrink unfinished)"

    def better_than(self, other: Finding) -> bool:
        return (self.final, -len(self.source)) > (other.final, -len(other.source))

    def to_json(self) -> dict[str, Any]:
        return {
            "item": list(self.item),
            "status": self.status,
            "path": self.path,
            "shrunk": self.shrunk_text(),
            "worker": self.worker,
            "sightings": self.sightings,
            "ops": self.ops,
            "divergences": self.divergences,
            "known_as": self.known_as,
            "signatures": [
                {
                    "digest": s.digest,
                    "kind": s.kind,
                    "stage": s.stage,
                    "status": self.sig_status.get(s.digest, ""),
                }
                for s in self.signatures
            ],
            "confirmation": self.confirmation,
        }


@dataclasses.dataclass
class Slot:
    index: int
    quota: int | None
    incarnation: int = 0
    proc: subprocess.Popen | None = None
    fd: int | None = None
    buf: bytes = b""
    started_at: float = 0.0
    bye: dict | None = None
    current: dict | None = None  # the program in flight
    explored: int = 0  # over all incarnations
    restarts: int = 0
    log: Path | None = None
    finished: bool = False

    @property
    def name(self) -> str:
        return f"worker-{self.index}.{self.incarnation}"


class Campaign:
    def __init__(self, args, out: Path):
        self.args = args
        self.out = out
        self.start = time.time()
        self.deadline = self.start + args.budget
        self.shrink_budget = args.shrink_budget or max(20.0, args.budget / 4)
        self.hard_deadline = self.deadline + self.shrink_budget + 30.0
        self.seed = (
            args.hypothesis_seed
            if args.hypothesis_seed is not None
            else int.from_bytes(os.urandom(4), "big")
        )
        self.stats = CampaignStats()
        self.findings: dict[tuple, Finding] = {}
        self.crash_sources: set[str] = set()
        self.errors: list[str] = []
        self.events: list[str] = []
        self.hello: dict[str, Any] = {}
        self.unavailable: dict[str, str] = {}
        self.worker_seconds = 0.0
        self.startup_seconds = 0.0
        self.crashes = 0
        self.hangs = 0
        self.sel = selectors.DefaultSelector()
        self.tty = sys.stderr.isatty() and not args.quiet
        self.last_progress = 0.0
        self.stopping = False

        self.corpora = [DirectoryCorpus(p) for p in (args.corpus or ["corpus"])]
        self.into = DirectoryCorpus(args.into) if args.into else DirectoryCorpus(out / "cases")
        self.index = CorpusIndex.of([ReadOnlyCorpus(c) for c in self.corpora] + [self.into])
        db = args.database
        self.database = (
            None if (db or "").lower() == "none" else str(Path(db) if db else out / "hypothesis-db")
        )
        n = args.workers if args.workers != "auto" else auto_workers()
        if args.max_examples is not None:
            n = max(1, min(n, args.max_examples))
            quotas = [
                args.max_examples // n + (1 if i < args.max_examples % n else 0) for i in range(n)
            ]
        else:
            quotas = [None] * n
        self.slots = [Slot(i, q) for i, q in enumerate(quotas)]

    # -- workers -----------------------------------------------------------------------
    def config(self, slot: Slot) -> dict[str, Any]:
        a = self.args
        return {
            "slot": slot.index,
            "incarnation": slot.incarnation,
            "seed": derive_seed(self.seed, slot.index, slot.incarnation),
            "fixes": a.fixes_switch,
            "plugins": list(a.plugin or ()),
            "lanes": list(a.lanes),
            "gen_lanes": list(a.lanes),
            "devices": list(a.devices),
            "max_ops": a.max_ops,
            "max_calls": a.max_calls,
            "deadline": self.deadline,
            "hard_deadline": self.hard_deadline,
            "shrink_budget": self.shrink_budget,
            "quota": None if slot.quota is None else max(0, slot.quota - slot.explored),
            "database": self.database,
            "scratch": str(self.out / "scratch" / f"worker-{slot.index}.py"),
            "skip_sources": sorted(self.crash_sources),
            # Divergences already shrunk in this campaign: a new incarnation need not redo them.
            "suppressed": sorted(list(k) for k, f in self.findings.items() if f.final),
            "case_seed": 0,
        }

    def spawn(self, slot: Slot) -> None:
        cfg = self.config(slot)
        cfg_path = self.out / "workers" / f"{slot.name}.json"
        cfg_path.write_text(json.dumps(cfg, indent=1))
        slot.log = self.out / "logs" / f"{slot.name}.log"
        read_fd, write_fd = os.pipe()
        env = child_env()
        env.pop("HYPOTHESIS_PROFILE", None)
        with open(slot.log, "wb") as log:
            slot.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "fuzz.campaign.worker",
                    "loop",
                    str(cfg_path),
                    str(write_fd),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                env=env,
                start_new_session=True,
            )
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        slot.fd, slot.buf, slot.current, slot.bye = read_fd, b"", None, None
        slot.started_at = time.time()
        self.sel.register(read_fd, selectors.EVENT_READ, slot)

    def read(self, slot: Slot) -> bool:
        """Read what is there; False on EOF."""
        eof = False
        while True:
            try:
                chunk = os.read(slot.fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                eof = True
                break
            slot.buf += chunk
        *lines, slot.buf = slot.buf.split(b"\n")
        for line in lines:
            if line.strip():
                try:
                    msg = json.loads(line)
                except ValueError:
                    self.error(f"{slot.name}: unreadable message {line[:200]!r}")
                    continue
                self.handle(slot, msg)
        return not eof

    def handle(self, slot: Slot, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        now = time.time()
        if t == "hello":
            self.startup_seconds += now - slot.started_at
            self.hello = self.hello or msg
            for key, why in msg.get("unavailable", {}).items():
                if key not in self.unavailable:
                    self.unavailable[key] = why
                    if "no CUDA device" not in why:
                        self.error(f"{key} cannot run: {why}")
        elif t == "start":
            slot.current = {
                "n": msg["n"],
                "sha": msg["sha"],
                "phase": msg["phase"],
                "since": now,
                "lane": None,
                "device": None,
            }
            if msg["phase"] == "explore":
                slot.explored += 1
        elif t == "lane":
            if slot.current is not None:
                slot.current.update(lane=msg["lane"], device=msg["device"], since_lane=now)
        elif t == "example":
            if not msg.get("cached"):
                slot.current = None
            self.stats.add_example(msg)
        elif t == "candidate":
            self.add_finding(
                Finding(
                    tuple(msg["item"]),
                    msg["source"],
                    msg["divergences"],
                    bool(msg.get("final")),
                    slot.name,
                    ops=msg.get("ops", []),
                    shrunk=msg.get("shrunk", ""),
                ),
                sighting=msg.get("phase") == "explore",
            )
        elif t == "error":
            self.error(f"{slot.name}: {msg.get('message', '')}")
        elif t == "bye":
            slot.bye = msg

    def add_finding(self, f: Finding, sighting: bool = True) -> None:
        old = self.findings.get(f.item)
        if old is None:
            self.findings[f.item] = f
            self.event(f"divergence {f.item[0]} at {f.item[1]} ({f.worker})")
            return
        f.sightings = old.sightings + (1 if sighting else 0)
        if f.better_than(old) or (f.worker == old.worker and not old.final):
            self.findings[f.item] = f
        else:
            old.sightings = f.sightings

    def error(self, text: str) -> None:
        self.errors.append(text)
        self.event("harness error: " + text.splitlines()[0][:200] if text else "harness error")

    def event(self, text: str) -> None:
        self.events.append(f"{time.time() - self.start:7.1f}s {text}")
        if self.args.quiet:
            return
        if self.tty:
            sys.stderr.write("\r\033[K")
        sys.stderr.write(f"[{time.time() - self.start:6.1f}s] {text}\n")
        sys.stderr.flush()

    def died(self, slot: Slot, hang: bool = False) -> None:
        """The worker process is gone (or was killed for hanging): account for it."""
        proc = slot.proc
        rc = proc.wait()
        self.sel.unregister(slot.fd)
        try:
            self.read(slot)
        except OSError:
            pass
        os.close(slot.fd)
        self.worker_seconds += time.time() - slot.started_at
        current, bye = slot.current, slot.bye
        if self.stopping:
            slot.finished = True
            if current is not None:
                self.event(f"{slot.name} stopped in the middle of a program (hard deadline)")
            return
        if bye is not None and current is None and not hang:
            if bye.get("reason") == "error":
                self.error(f"{slot.name} stopped on an error (log: {slot.log})")
            slot.finished = True
            return
        if current is not None and current.get("lane"):
            self.record_crash(slot, current, rc, hang)
        elif current is not None:
            self.error(
                f"{slot.name} died (exit {rc}) while running the eager reference; "
                f"program: {self.keep_scratch(slot, 'eager')}; log: {slot.log}"
            )
        elif not self.stopping:
            self.error(
                f"{slot.name} exited with {rc} between programs; log: {slot.log}\n" + tail(slot.log)
            )
        if (
            self.stopping
            or time.time() >= self.deadline
            or (slot.quota is not None and slot.explored >= slot.quota)
        ):
            slot.finished = True
            return
        if slot.restarts >= MAX_RESTARTS:
            self.error(f"worker slot {slot.index} restarted {slot.restarts} times; giving up on it")
            slot.finished = True
            return
        slot.restarts += 1
        slot.incarnation += 1
        self.spawn(slot)

    def keep_scratch(self, slot: Slot, what: str) -> str:
        src = self.out / "scratch" / f"worker-{slot.index}.py"
        dst = self.out / "crashes" / f"{what}-{slot.name}.py"
        dst.parent.mkdir(exist_ok=True)
        try:
            dst.write_text(src.read_text())
        except OSError:
            return "(scratch file missing)"
        return str(dst)

    def record_crash(self, slot: Slot, current: dict, rc: int, hang: bool) -> None:
        lane, device = current["lane"], current["device"]
        scratch = self.out / "scratch" / f"worker-{slot.index}.py"
        try:
            source = scratch.read_text()
        except OSError:
            self.error(f"{slot.name} died but its scratch file is missing")
            return
        if sha(source) != current["sha"]:
            self.error(f"{slot.name} died but its scratch file holds another program")
            return
        self.crash_sources.add(current["sha"])
        if hang:
            self.hangs += 1
            how = f"hang: no result after {self.args.example_timeout:g} s; the worker was killed"
            fp = "hang"
        else:
            self.crashes += 1
            name = signal_name(rc)
            how = f"the worker process died ({name}) while {lane} ran this program"
            fp = name
        kind = f"{lane}.crash"
        d = {
            "kind": kind,
            "stage": "process",
            "details": how,
            "device": device,
            "data": {"returncode": rc, "phase": current["phase"], "worker": slot.name},
        }
        self.add_finding(
            Finding((kind, "process", fp), source, [d], final=False, worker=slot.name, crash=True)
        )
        if current["phase"] == "explore":  # it ran (and ended) like any other program
            self.stats.explored += 1
            st = self.stats.lane(f"{lane}/{device}")
            st.programs += 1
            st.divergent += 1
            st.kinds[kind] += 1

    # -- main loop ---------------------------------------------------------------------
    def run(self) -> None:
        for sub in ("scratch", "logs", "workers"):
            (self.out / sub).mkdir(parents=True, exist_ok=True)
        for slot in self.slots:
            self.spawn(slot)
        self.event(
            f"campaign seed {self.seed}, {len(self.slots)} worker(s), "
            f"lanes {','.join(self.args.lanes)}, devices {','.join(self.args.devices)}, "
            f"fixes {self.args.fixes_switch}, budget {self.args.budget:g} s"
            + (
                f", max {self.args.max_examples} programs"
                if self.args.max_examples is not None
                else ""
            )
        )
        try:
            while any(not s.finished for s in self.slots):
                for key, _ in self.sel.select(timeout=0.5):
                    slot = key.data
                    if slot.proc is not None and not self.read(slot):
                        self.died(slot)
                now = time.time()
                for slot in self.slots:
                    if slot.finished or slot.proc is None:
                        continue
                    if slot.proc.poll() is not None and slot.fd is not None:
                        if slot.fd in self.sel.get_map():
                            self.died(slot)
                        continue
                    cur = slot.current
                    if cur is not None and now - cur["since"] > self.args.example_timeout:
                        kill(slot.proc)
                        self.died(slot, hang=True)
                if now > self.hard_deadline and not self.stopping:
                    self.stopping = True
                    self.event("hard deadline: stopping the workers")
                    for slot in self.slots:
                        if not slot.finished and slot.proc and slot.proc.poll() is None:
                            kill(slot.proc, signal.SIGTERM)
                if self.stopping and now > self.hard_deadline + 10:
                    for slot in self.slots:
                        if not slot.finished and slot.proc and slot.proc.poll() is None:
                            kill(slot.proc)
                self.progress()
        except KeyboardInterrupt:
            self.stopping = True
            self.error("interrupted")
            for slot in self.slots:
                if slot.proc and slot.proc.poll() is None:
                    kill(slot.proc)
        if self.tty:
            sys.stderr.write("\r\033[K")

    def progress(self, force: bool = False) -> None:
        if self.args.quiet:
            return
        now = time.time()
        every = 0.5 if self.tty else 15.0
        if not force and now - self.last_progress < every:
            return
        self.last_progress = now
        wall = now - self.start
        s = self.stats
        live = sum(1 for x in self.slots if not x.finished)
        text = (
            f"[{wall:6.1f}s/{self.args.budget:g}s] {s.explored} programs "
            f"({s.explored / max(wall, 1e-9):.2f}/s), {s.shrink_runs} shrink runs, "
            f"{len(self.findings)} divergence(s), {self.crashes} crash(es), "
            f"{self.hangs} hang(s), {live} worker(s)"
        )
        if self.tty:
            sys.stderr.write("\r\033[K" + text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    # -- the end -----------------------------------------------------------------------
    def confirm_crash(self, f: Finding, budget_left: int) -> None:
        d = f.divergences[0]
        if budget_left <= 0:
            f.confirmation = "not re-run (too many crashes to confirm)"
            return
        path = self.out / "scratch" / f"confirm-{sha(f.source)[:12]}.py"
        path.write_text(f.source)
        lane = d["kind"].split(".")[0]
        cmd = [
            sys.executable,
            "-m",
            "fuzz.campaign.worker",
            "run-one",
            str(path),
            lane,
            d["device"],
            "--fixes",
            self.args.fixes_switch,
        ]
        for p in self.args.plugin or ():
            cmd += ["--plugin", p]
        start = time.time()
        try:
            rc, hung = run_one(cmd, child_env(), self.args.example_timeout)
            if hung:
                f.confirmation = "reproduced: the re-run hung too"
            elif rc != 0:
                f.confirmation = f"reproduced: the re-run died too ({signal_name(rc)})"
            else:
                f.confirmation = f"did not reproduce (the re-run exited {rc})"
                f.status = "flaky"
        finally:
            self.stats.time["crash confirmation"] += time.time() - start
            path.unlink(missing_ok=True)

    def finish(self) -> dict[str, Any]:
        fixes = self.hello.get("fixes", {})
        versions = self.hello.get("versions", {})
        written: dict[Signature, str] = {}
        confirm_left = MAX_CONFIRMATIONS
        order = sorted(self.findings.values(), key=lambda f: (f.crash, f.item))
        for f in order:
            if f.crash:
                self.confirm_crash(f, confirm_left)
                confirm_left -= 1
                if f.status == "flaky":
                    continue
            sigs = list(
                dict.fromkeys(signature(d["kind"], d["stage"], f.source) for d in f.divergences)
            )
            f.signatures = sigs
            known = {}
            for s in sigs:
                if (where := self.index.known(s)) is not None:
                    known[s] = where
                    f.sig_status[s.digest] = "known"
                elif (where := written.get(s)) is not None:
                    known[s] = where
                    f.sig_status[s.digest] = "duplicate"
                else:
                    f.sig_status[s.digest] = "new"
            f.known_as = sorted(set(known.values()))
            new = [s for s in sigs if s not in known]
            if not new:
                in_corpus = any(v == "known" for v in f.sig_status.values())
                f.status = "known" if in_corpus else "duplicate"
                continue
            f.status = "new"
            # The divergence Hypothesis shrank for goes first (headline, file name).
            f.divergences.sort(key=lambda d: d["kind"] != f.item[0])
            shrunk = {
                "yes": "Hypothesis shrank it to this program (minimal for this divergence).",
                "no (the process died on it)": "not shrunk: the worker process died on it.",
                "partly (shrink budget spent)": "partly: the shrink budget ran out; this is the "
                "smallest program found by then.",
            }.get(
                f.shrunk_text(),
                "partly: the shrink did not finish (or it was shrinking "
                "another divergence); this is the smallest program seen.",
            )
            how = (
                f"Found by `python -m fuzz nightly` (campaign seed {self.seed}, {f.worker}, "
                f"lanes {','.join(self.args.lanes)}); seen {f.sightings} time(s)."
            )
            text = render_finding(
                f.source,
                f.divergences,
                how=how,
                fixes=fixes,
                versions=versions,
                shrunk=shrunk,
                signatures=[s.digest for s in sigs],
                switch=self.args.fixes_switch,
                isolate=f.crash,
            )
            base = safe_name(f"{f.item[0]}_{sigs[0].digest[:8]}")
            name = self.into.save(base, text)
            f.path = str(self.into.path / f"{name}.py")
            for s in sigs:
                written.setdefault(s, f.path)
        return self.document()

    def document(self) -> dict[str, Any]:
        wall = time.time() - self.start
        stats = self.stats.to_json()
        # Per kind: explored programs showing it, and distinct signatures by status.
        kinds: dict[str, dict[str, int]] = {}

        def row(kind):
            return kinds.setdefault(
                kind, {"programs": 0, "new": 0, "known": 0, "duplicate": 0, "flaky": 0}
            )

        for f in self.findings.values():
            if f.status == "flaky":
                row(f.item[0])["flaky"] += 1
            for s in f.signatures:
                row(s.kind)[f.sig_status.get(s.digest, "known")] += 1
        for lane_stats in stats["lanes"].values():
            for kind, n in lane_stats["kinds"].items():
                row(kind)["programs"] += n
        new = [f for f in self.findings.values() if f.status == "new"]
        code = 2 if self.errors else (1 if new else 0)
        a = self.args
        return {
            "command": "nightly",
            "exit": code,
            "seed": self.seed,
            "budget_s": a.budget,
            "wall_s": round(wall, 2),
            "workers": len(self.slots),
            "worker_restarts": sum(s.restarts for s in self.slots),
            "lanes": list(a.lanes),
            "devices": list(a.devices),
            "fixes": {"switch": a.fixes_switch, "active": self.hello.get("fixes", {})},
            "versions": self.hello.get("versions", {}),
            "max_examples": a.max_examples,
            "database": self.database,
            "corpus": [str(c.path) for c in self.corpora],
            "cases_dir": str(self.into.path),
            "programs": {
                "explored": self.stats.explored,
                "shrink_runs": self.stats.shrink_runs,
                "per_second": round(self.stats.explored / max(wall, 1e-9), 3),
            },
            "crashes": self.crashes,
            "hangs": self.hangs,
            "unavailable": self.unavailable,
            "divergence_kinds": kinds,
            "findings": [
                f.to_json()
                for f in sorted(
                    self.findings.values(), key=lambda f: ({"new": 0}.get(f.status, 1), f.item)
                )
            ],
            "new_cases": [f.path for f in new],
            "stats": stats,
            "time": {
                "wall": round(wall, 2),
                "worker_seconds": round(self.worker_seconds, 2),
                "worker_startup": round(self.startup_seconds, 2),
            },
            "errors": self.errors,
            "events": self.events[-200:],
        }


STARTUP_LIMIT_S = 180.0


def child_env() -> dict[str, str]:
    """The environment of a child process: the repository and the cwd importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), os.getcwd()] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_one(
    cmd: list[str], env: dict, timeout: float, output: list | None = None
) -> tuple[int | None, bool]:
    """Run `worker run-one` in a fresh process: (exit status, whether it hung). The
    program's time limit counts from when the process says RUNNING (imports excluded).
    Its stdout is appended to `output` when given."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True
    )
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    limit = time.time() + STARTUP_LIMIT_S
    buf, running = b"", False
    try:
        while True:
            if not sel.select(timeout=max(0.0, limit - time.time())):
                kill(proc)
                proc.wait()
                return None, True
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                if output is not None:
                    output.append(buf.decode(errors="replace"))
                return proc.wait(), False
            buf += chunk
            if not running and b"RUNNING\n" in buf:
                running = True
                limit = time.time() + timeout
    finally:
        sel.close()
        proc.stdout.close()


def tail(path: Path | None, n: int = 15) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except (OSError, TypeError):
        return ""


def signal_name(rc: int | None) -> str:
    if rc is None:
        return "no exit status"
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    return f"exit {rc}"


def kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Signal the worker's whole process group (it started its own session)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


def main(args) -> int:
    import fixes
    from fuzz.prepare import fixes_switch
    from fuzz.report import write_reports

    args.fixes_switch = fixes_switch(args.fixes)
    try:
        fixes.parse_switch(args.fixes_switch)
    except fixes.FixError as e:
        print(f"error: --fixes {args.fixes_switch}: {e}", file=sys.stderr)
        return 2
    from fuzz.divergence import KINDS, lane_of

    LANE_NAMES = sorted({lane_of(k) for k in KINDS})  # without importing any lane
    unknown = [ln for ln in args.lanes if ln not in LANE_NAMES]
    bad_devices = [d for d in args.devices if d not in ("cpu", "cuda")]
    if unknown or bad_devices:
        print(
            f"error: unknown lane(s) {unknown} / device(s) {bad_devices}; lanes: "
            f"{list(LANE_NAMES)}, devices: cpu, cuda",
            file=sys.stderr,
        )
        return 2
    if args.max_examples is not None and args.max_examples < 1:
        print("error: --max-examples must be >= 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    campaign = Campaign(args, out)
    campaign.run()
    doc = campaign.finish()
    write_reports(out, doc)
    if not args.quiet:
        print(
            f"{doc['programs']['explored']} programs in {doc['wall_s']:.0f} s "
            f"({doc['programs']['per_second']:.2f}/s); "
            f"{sum(1 for f in doc['findings'] if f['status'] == 'new')} new, "
            f"{sum(1 for f in doc['findings'] if f['status'] in ('known', 'duplicate'))} known "
            f"finding(s); report: {out / 'report.md'}; exit {doc['exit']}"
        )
        for path in doc["new_cases"]:
            print(f"  new case: {path}")
        for err in doc["errors"][:5]:
            print(f"  harness error: {err.splitlines()[0][:300]}")
    return doc["exit"]
