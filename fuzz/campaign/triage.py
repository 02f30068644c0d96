"""Triage at the end of a campaign: which findings are new bugs, and filing those.

For each finding (the best program of one bucket):

1. a crash (the worker process died or hung on it) is re-run in a fresh process; one that
   does not die again is `flaky` and is not filed (`confirmation` says what happened);
2. its signatures (fuzz.signature: kind, stage kind, normalized program) and its
   divergences are looked up in the corpus index: a registered bug, by signature or by a
   MATCHES pattern (fuzz.known), makes it `known`; one already filed by this run makes it
   a `duplicate` (two buckets that shrank to the same program);
3. a finding with a new signature is `new`: written as a case file (fuzz.campaign.findings)
   into `--into` (default OUT/cases/), atomically and never overwriting (fuzz.corpus).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from fuzz.campaign.findings import Finding, render_finding
from fuzz.campaign.protocol import sha
from fuzz.campaign.supervisor import Supervisor
from fuzz.corpus import CorpusIndex, DirectoryCorpus, safe_name
from fuzz.procs import child_env, run_isolated, signal_name
from fuzz.signature import Signature, signature

MAX_CONFIRMATIONS = 8


Rerun = Callable[[str, str, str], tuple[int | None, bool]]  # (source, lane, device) -> (rc, hung)


def local_rerun(sup: Supervisor) -> Rerun:
    """Crash confirmation on this machine: `python -m fuzz.outcome` in a fresh process."""
    s = sup.settings

    def rerun(source: str, lane: str, device: str) -> tuple[int | None, bool]:
        path = s.out / "scratch" / f"confirm-{sha(source)[:12]}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        cmd = [sys.executable, "-m", "fuzz.outcome", str(path), lane, device, "--fixes", s.fixes]
        for p in s.plugins:
            cmd += ["--plugin", p]
        try:
            return run_isolated(cmd, child_env(), s.example_timeout)
        finally:
            path.unlink(missing_ok=True)

    return rerun


class Triage:
    def __init__(
        self, sup: Supervisor, index: CorpusIndex, into: DirectoryCorpus, rerun: Rerun | None = None
    ):
        self.sup, self.index, self.into = sup, index, into
        self.rerun = rerun or local_rerun(sup)
        self.written: dict[Signature, str] = {}

    def confirm_crash(self, f: Finding) -> None:
        """Re-run a crash in a fresh process: `flaky` when it does not die (or hang) again."""
        d = f.divergences[0]
        start = time.time()
        try:
            rc, hung = self.rerun(f.source, d["kind"].split(".")[0], d["device"])
        finally:
            self.sup.stats.time["crash confirmation"] += time.time() - start
        if hung:
            f.confirmation = "reproduced: the re-run hung too"
        elif rc != 0:
            f.confirmation = f"reproduced: the re-run died too ({signal_name(rc)})"
        else:
            f.confirmation = f"did not reproduce (the re-run exited {rc})"
            f.status = "flaky"

    def classify(self, f: Finding) -> None:
        """Per divergence: known (a registered bug: by signature or MATCHES), a duplicate
        of a case this run filed, or new; the finding is new when any divergence is."""
        known: set[str] = set()
        for d in f.divergences:
            s = signature(d["kind"], d["stage"], f.source)
            if s in f.signatures:
                continue
            f.signatures.append(s)
            if names := self.index.known_as(d, f.source):
                known.update(names)
                f.sig_status[s.digest] = "known"
            elif s in self.written:
                f.sig_status[s.digest] = "duplicate"
            else:
                f.sig_status[s.digest] = "new"
        f.known_as = sorted(known)
        if "new" in f.sig_status.values():
            f.status = "new"
        else:
            f.status = "known" if known else "duplicate"

    def file(self, f: Finding, render: Callable[[Finding], str]) -> None:
        # The divergence Hypothesis shrank for goes first (headline, file name).
        f.divergences.sort(key=lambda d: d.get("bucket") != f.bucket and d["kind"] != f.kind)
        base = safe_name(f"{f.kind}_{f.signatures[0].digest[:8]}")
        name = self.into.save(base, render(f))
        f.path = str(Path(self.into.path) / f"{name}.py")
        for s in f.signatures:
            self.written.setdefault(s, f.path)

    def run(self, render: Callable[[Finding], str]) -> None:
        confirm_left = MAX_CONFIRMATIONS
        for f in sorted(self.sup.findings.values(), key=lambda f: (f.crash, f.bucket)):
            if f.crash:
                if confirm_left <= 0:
                    f.confirmation = "not re-run (too many crashes to confirm)"
                else:
                    confirm_left -= 1
                    self.confirm_crash(f)
                if f.status == "flaky":
                    continue
            self.classify(f)
            if f.status == "new":
                self.file(f, render)


def renderer(sup: Supervisor) -> Callable[[Finding], str]:
    """The case file of a new finding: its source with a docstring (fuzz.campaign.findings)."""
    s, hello = sup.settings, sup.hello

    def render(f: Finding) -> str:
        how = (
            f"Found by `python -m fuzz nightly` (campaign seed {s.seed}, {f.worker}, "
            f"lanes {','.join(s.lanes)}); seen {f.sightings} time(s)."
        )
        return render_finding(
            f.source,
            f.divergences,
            how=how,
            fixes=hello.fixes if hello else {},
            versions=hello.versions if hello else {},
            shrunk=f.shrunk_sentence(),
            signatures=[x.digest for x in f.signatures],
            switch=s.fixes,
            isolate=f.crash,
        )

    return render
