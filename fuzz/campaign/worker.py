"""One nightly worker process: a Hypothesis loop over generated cases.

Started by the parent (fuzz.campaign.nightly) as

    python -m fuzz.campaign.worker loop CONFIG.json FD

it applies the fixes switch, imports plugins, then runs *rounds*: each round is one
`@given(cases(lanes=...))` run with the nightly profile and its own seed (derived from the
campaign seed, the worker slot, its incarnation and the round number). Per example it

1. writes the case source to its scratch file (`OUT/scratch/worker-K.py`, atomically)
   and sends `start` to the parent over the pipe FD (JSON lines), then `lane` before each
   lane: if the process dies or hangs, the parent knows the program and the lane;
2. runs every (lane, device) through the engine (which confirms each divergence by a
   second run), and sends an `example` record (counters, timings, skips, kinds, coverage);
3. if a confirmed divergence is *new to this worker* (its kind is not EXPECTed by the
   corpus and its (kind, stage kind, fingerprint) was not already shrunk here), raises an
   exception whose class is specific to that item, so Hypothesis shrinks towards the
   smallest program showing the same item (`report_multiple_bugs=False`: a round stops
   generating at its first bug and shrinks it). Every failing example, shrink step or
   not, is sent to the parent as a `candidate`, so a worker that is killed while shrinking
   still leaves its best program so far. The final, minimal example is caught when
   Hypothesis re-raises it and sent with `final: true`; its items are then suppressed for
   the following rounds (sightings are still counted), and a new round starts.

Time: exploring stops at the campaign deadline (or after the worker's quota of explored
programs, `--max-examples`); a shrink stops `shrink_budget` seconds after the bug was
found: from then on every new candidate "passes" without running, so Hypothesis ends the
shrink at the best example so far. Sources already judged are answered from a verdict
cache (the same source always gives the same result: calls are seeded).

`python -m fuzz.campaign.worker run-one CASE LANE DEVICE [--fixes S] [--plugin M]`
runs one case on one lane in a fresh process and prints its outcome as JSON: the parent
uses it to confirm that a crash reproduces.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any


class BudgetExhausted(BaseException):
    """Raised inside the test to end a round at once (not an Exception: Hypothesis lets
    it through instead of treating it as a failure)."""


class ShrinkCutShort(BaseException):
    """Raised inside the test when the shrink budget is spent: ends the round at once; the
    best candidate so far becomes the finding."""


class Diverged(Exception):
    """Base of the per-item exception classes raised so that Hypothesis shrinks."""

    payload: dict[str, Any]


_CLASSES: dict[tuple[str, str, str], type[Diverged]] = {}


def exception_for(item: tuple[str, str, str]) -> type[Diverged]:
    """One exception class per (kind, stage kind, fingerprint): Hypothesis tells bugs apart
    by exception type and location, so shrinking keeps to the same item."""
    if item not in _CLASSES:
        name = "Diverged_" + re.sub(r"\W+", "_", "_".join(item))[:80]
        _CLASSES[item] = type(name, (Diverged,), {})
    return _CLASSES[item]


def fingerprint(divergence) -> str:
    """Tells apart crashes with different errors (digits and proxy names removed)."""
    if not divergence.kind.endswith(".crash"):
        return ""
    text = str(divergence.data.get("error") or divergence.details)
    text = re.sub(r"\d+", "N", text)
    return text[:60]


def item_of(divergence) -> tuple[str, str, str]:
    from fuzz.signature import stage_kind

    return (divergence.kind, stage_kind(divergence.stage), fingerprint(divergence))


def item_of_json(d: dict) -> tuple[str, str, str]:
    from fuzz.divergence import Divergence

    return item_of(Divergence(**{k: d[k] for k in ("kind", "stage", "details", "device", "data")}))


def derive_seed(*parts: Any) -> int:
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


class Worker:
    def __init__(self, config: dict[str, Any], fd: int):
        self.cfg, self.fd = config, fd
        self.scratch = Path(config["scratch"])
        # (source, where) -> None (no divergence) or (items, payload)
        self.verdicts: dict[tuple[str, tuple], tuple[list, dict] | None] = {}
        self.suppressed: set[tuple[str, str, str]] = {
            tuple(i) for i in config.get("suppressed", ())
        }
        self.skip_sources = set(config.get("skip_sources", ()))
        self.explored = 0
        self.n = 0
        self.phase = "explore"
        self.shrink_deadline = float("inf")
        self.primary: tuple | None = None
        self.primary_device = "cpu"
        self.best: dict | None = None
        self.last_return = time.perf_counter()
        self.errors_sent: set[str] = set()

    # -- channel -----------------------------------------------------------------------
    def send(self, **msg) -> None:
        data = (json.dumps(msg, default=str) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]

    def harness_error(self, text: str) -> None:
        key = text.splitlines()[0][:200] if text else "?"
        if key not in self.errors_sent and len(self.errors_sent) < 20:
            self.errors_sent.add(key)
            self.send(t="error", message=text[-4000:])

    # -- setup -------------------------------------------------------------------------
    def setup(self) -> None:
        import fixes
        from fuzz.prepare import lane_unavailable, prepare

        active = prepare(self.cfg["fixes"], self.cfg.get("plugins", ()))
        import fuzz.settings  # noqa: F401  (registers the profiles)

        self.unavailable = {}
        for device in self.cfg["devices"]:
            for lane in self.cfg["lanes"]:
                why = lane_unavailable(lane, device)
                if why:
                    self.unavailable[f"{lane}/{device}"] = why
        self.send(
            t="hello",
            pid=os.getpid(),
            fixes=active,
            versions=fixes.package_versions(),
            unavailable=self.unavailable,
        )

    # -- one example -------------------------------------------------------------------
    def write_scratch(self, source: str) -> None:
        tmp = self.scratch.with_suffix(".tmp")
        tmp.write_text(source)
        os.replace(tmp, self.scratch)

    def example(self, generated) -> None:
        gen_s = time.perf_counter() - self.last_return
        try:
            self._example(generated, gen_s)
        finally:
            self.last_return = time.perf_counter()

    def _example(self, generated, gen_s: float) -> None:
        source = generated.source
        now = time.time()
        if self.phase == "explore":
            quota = self.cfg.get("quota")
            if now >= self.cfg["deadline"] or (quota is not None and self.explored >= quota):
                raise BudgetExhausted()
        elif now >= self.shrink_deadline:
            raise ShrinkCutShort()
        where = self.where()
        verdict = self.verdicts.get((source, where), ...)
        if verdict is not ...:
            # Judged before (calls are seeded, so the result would be the same).
            self.send(t="example", cached=True, gen_s=gen_s, phase=self.phase)
            if verdict is not None:
                self._diverged(*verdict, phase=self.phase, announce=False)
            return
        digest = sha(source)
        if digest in self.skip_sources:
            # This program crashed an earlier incarnation: it is on record already.
            self.verdicts[(source, where)] = None
            return
        self.n += 1
        phase = self.phase
        if phase == "explore":
            self.explored += 1
        self.write_scratch(source)
        self.send(t="start", n=self.n, phase=phase, sha=digest)
        start = time.perf_counter()
        lanes_rec, divergences = self.run_lanes(generated.case, where)
        run_s = time.perf_counter() - start
        program = generated.program
        self.send(
            t="example",
            n=self.n,
            phase=phase,
            gen_s=gen_s,
            run_s=run_s,
            lanes=lanes_rec,
            families=dict(program.families),
            decisions=dict(program.decision_kinds),
        )
        if not divergences:
            self.verdicts[(source, where)] = None
            return
        items = sorted({item_of(d) for d in divergences})
        payload = {
            "source": source,
            "divergences": [d.to_json() for d in divergences],
            "families": sorted(program.families),
            "ops": [n.op for n in program.nodes],
        }
        self.verdicts[(source, where)] = (items, payload)
        self._diverged(items, payload, phase=phase, announce=True)

    def _diverged(self, items, payload, phase: str, announce: bool) -> None:
        """Raise for the first item not yet shrunk by this worker (so Hypothesis shrinks
        it); return quietly when every item already was."""
        fresh = [i for i in items if i not in self.suppressed]
        if not fresh:
            return
        item = fresh[0]
        payload = dict(payload, item=list(item))
        if self.phase == "explore":
            self.phase = "shrink"
            self.primary = item
            self.primary_device = next(
                (d["device"] for d in payload["divergences"] if item_of_json(d) == item), "cpu"
            )
            self.shrink_deadline = min(
                time.time() + self.cfg["shrink_budget"], self.cfg["hard_deadline"]
            )
        if item == self.primary:
            self.best = payload  # Hypothesis only accepts improvements: the latest is the best
        if announce:
            self.send(t="candidate", final=False, phase=phase, **payload)
        self._raise(exception_for(item), payload)

    @staticmethod
    def _raise(cls, payload):
        exc = cls(f"{payload['item'][0]} at {payload['item'][1]}")
        exc.payload = payload
        raise exc

    def where(self) -> tuple[tuple[str, str], ...]:
        """The (lane, device) pairs to run: all of them while exploring; while shrinking,
        only the one whose divergence is being shrunk (the others cannot change it)."""
        if self.phase == "shrink" and self.primary is not None:
            lane = self.primary[0].split(".", 1)[0]
            device = self.primary_device
            return ((lane, device),)
        return tuple((lane, device) for device in self.cfg["devices"] for lane in self.cfg["lanes"])

    def run_lanes(self, case, where):
        from fuzz.case import CaseError
        from fuzz.engine import run_case

        lanes_rec: dict[str, dict] = {}
        divergences = []
        for lane, device in where:
            key = f"{lane}/{device}"
            if key in self.unavailable:
                lanes_rec[key] = {"skipped": self.unavailable[key]}
                continue
            self.send(t="lane", lane=lane, device=device)
            try:
                result = run_case(case, [lane], [device], seed=self.cfg.get("case_seed", 0))
            except CaseError as e:
                lanes_rec[key] = {"error": str(e)}
                self.harness_error(f"generated case raised CaseError: {e}\n{case.source}")
                continue
            except Exception as e:
                lanes_rec[key] = {"error": f"{type(e).__name__}: {e}"}
                self.harness_error(
                    f"{key} raised {type(e).__name__}: {e}\n{traceback.format_exc(limit=-4)}"
                )
                continue
            rec: dict[str, Any] = {"kinds": [], "counters": {}, "timings": {}}
            for report in result.reports:
                if report.skipped:
                    rec["skipped"] = report.skipped
                rec["kinds"] += sorted(report.kinds)
                rec["counters"] = dict(report.counters)
                rec["timings"] = {k: float(v) for k, v in report.timings.items()}
                divergences += report.divergences
            rec["flaky"] = sorted({d.kind for r in result.flaky for d in r.divergences})
            lanes_rec[key] = rec
        return lanes_rec, divergences

    # -- rounds ------------------------------------------------------------------------
    def run_round(self, round_no: int) -> str:
        from hypothesis import Phase, given, seed, settings
        from hypothesis.database import DirectoryBasedExampleDatabase

        from fuzz.strategies import cases

        cfg = self.cfg
        db = DirectoryBasedExampleDatabase(cfg["database"]) if cfg.get("database") else None
        # The quota of explored programs is enforced by `_example` (BudgetExhausted), not
        # by max_examples: Hypothesis also counts duplicates that never run.
        base = settings.get_profile("nightly")
        phases = [Phase.generate, Phase.shrink] + ([Phase.reuse] if db is not None else [])
        round_seed = derive_seed(cfg["seed"], round_no)
        self.phase, self.shrink_deadline = "explore", float("inf")
        self.primary, self.best = None, None

        @settings(
            base,
            database=db,
            report_multiple_bugs=False,
            phases=phases,
            print_blob=False,
            derandomize=False,
        )
        @seed(round_seed)
        @given(
            cases(lanes=tuple(cfg["gen_lanes"]), max_ops=cfg["max_ops"], max_calls=cfg["max_calls"])
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
            payloads = [x.payload for x in getattr(e, "exceptions", ()) if isinstance(x, Diverged)]
            for p in payloads:
                self.send(t="candidate", final=False, **p)
                self.suppressed.add(tuple(p["item"]))
            self.harness_error(
                f"round {round_no}: Hypothesis raised {type(e).__name__}: {e}\n"
                f"{traceback.format_exc(limit=-6)}"
            )
            return "error"
        return "exhausted"

    def finding(self, payload: dict, shrunk: str) -> None:
        """Report the end of a shrink, and stop raising for everything this program shows."""
        self.send(t="candidate", final=True, shrunk=shrunk, **payload)
        for d in payload["divergences"]:
            self.suppressed.add(item_of_json(d))
        self.suppressed.add(tuple(payload["item"]))

    def loop(self) -> None:
        self.setup()
        reason, errors = "done", 0
        for round_no in range(10_000):
            quota = self.cfg.get("quota")
            if time.time() >= self.cfg["deadline"]:
                reason = "budget"
                break
            if quota is not None and self.explored >= quota:
                reason = "quota"
                break
            before = self.explored
            outcome = self.run_round(round_no)
            if outcome == "exhausted" and self.explored == before:
                reason = "exhausted"  # Hypothesis found nothing new to try
                break
            if outcome == "budget":
                reason = "budget" if time.time() >= self.cfg["deadline"] else "quota"
                break
            errors = errors + 1 if outcome == "error" else 0
            if errors >= 3:
                reason = "errors"
                break
        self.send(t="bye", reason=reason, explored=self.explored)


def _loop(config_path: str, fd: str) -> int:
    config = json.loads(Path(config_path).read_text())
    worker = Worker(config, int(fd))
    try:
        worker.loop()
    except Exception as e:
        worker.send(
            t="error", message=f"worker failed: {type(e).__name__}: {e}\n{traceback.format_exc()}"
        )
        worker.send(t="bye", reason="error", explored=worker.explored)
        return 3
    return 0


def _run_one(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m fuzz.campaign.worker run-one")
    p.add_argument("case")
    p.add_argument("lane")
    p.add_argument("device")
    p.add_argument("--fixes", default=None)
    p.add_argument("--plugin", action="append", default=[])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    from fuzz.case import load_case
    from fuzz.prepare import prepare
    from fuzz.replay import run_lane

    prepare(args.fixes, args.plugin)
    case = load_case(args.case)
    print("RUNNING", flush=True)  # the parent's time limit starts here (imports are done)
    outcome = run_lane(case, args.lane, args.device, seed=args.seed)
    print("OUTCOME " + json.dumps(outcome.to_json(), default=str), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["loop"] and len(argv) == 3:
        return _loop(argv[1], argv[2])
    if argv[:1] == ["run-one"]:
        return _run_one(argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
