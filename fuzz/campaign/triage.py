"""Triage at the end of a campaign: which findings are new bugs, and filing one case
file per root cause.

For each finding (the best program of one bucket):

1. a crash (the worker process died or hung on it) is re-run in a fresh process with
   faulthandler on; one that does not die again is `flaky` and is not filed
   (`confirmation` says what happened). Where the re-run printed the Python stack, its
   innermost frame becomes the crash's `facts.at` (fuzz.procs.crash_site); where it
   printed the native stack, the kernel it died in becomes `facts.died_in` and, mapped to
   the program's op, `facts.runtime_origin` (`<op>:died`, fuzz.native_stack); the plan
   divergences the EXIR lane announced before the runtime ran join the finding's
   divergences (the death is theirs: causes rule (g)). At most
   MAX_CONFIRMATIONS crashes are re-run; the others are classified unconfirmed and
   counted (`Supervisor.unconfirmed`, report.json "unconfirmed_crashes");
2. its signatures (fuzz.signature: kind, stage kind, normalized program) and its
   divergences are looked up in the corpus index: a registered bug, by signature or by a
   MATCHES pattern (fuzz.known), makes it `known`; one already claimed by a new finding of
   this run makes it a `duplicate` (two buckets that shrank to the same program). A
   finding that ends known although the first program of its bucket (the explored one,
   before shrinking) shows no registered bug is `drifted`: the shrink slid from a new
   divergence to a registered one (the worker's shrink target excludes divergences a
   registered pattern recognises, fuzz.campaign.example.shows, so this should be rare); it
   is listed with its first program and counts as new for the exit status. One whose
   shrunk program is a registered case's own program (the same signature) is known: the
   shrink rediscovered that case. A signature is known when each divergence of the
   program that has it is;
3. a finding with a new signature is `new`. New findings of one root cause are merged
   (the rule below): one case file per group, the smallest program (fewest characters of
   normalized program), written into `--into` (default OUT/cases/), atomically and never
   overwriting (fuzz.corpus); its docstring lists the buckets it absorbed. The others get
   status `merged` and `merged_into` (that file); duplicates get `merged_into` too.
   Nothing is dropped: every finding stays in the report.

The merge rule (when two new findings are one root cause) is fuzz/campaign/causes.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fuzz.campaign.causes import primary, same_cause
from fuzz.campaign.findings import Finding, render_finding
from fuzz.campaign.stock import (
    MAX_STOCK_RERUNS,
    StockRerun,
    judge,
    local_stock_rerun,
    run_fresh,
)
from fuzz.campaign.supervisor import Supervisor
from fuzz.corpus import CorpusIndex, DirectoryCorpus, safe_name
from fuzz.native_stack import died_in, kernel_op
from fuzz.procs import (
    RUNTIME_LOG_ENV,
    crash_site,
    new_runtime_log,
    runtime_log_tail,
    signal_name,
)
from fuzz.signature import Signature, normalize_source, signature

MAX_CONFIRMATIONS = 8

# (source, lane, device) -> (rc, hung), or (rc, hung, stderr: faulthandler's dump, the
# facts the lane announced before it died: fuzz.facts.announced, and the runtime log's
# last lines: fuzz.procs.runtime_log_tail)
Rerun = Callable[[str, str, str], tuple]


def local_rerun(sup: Supervisor) -> Rerun:
    """Crash confirmation on this machine: `python -m fuzz.outcome` in a fresh process."""

    def rerun(source: str, lane: str, device: str) -> tuple[int | None, bool, str, dict, str]:
        from fuzz.facts import ANNOUNCE_ENV, announced  # imports torch: only when needed

        log = new_runtime_log()
        env = {ANNOUNCE_ENV: "1", RUNTIME_LOG_ENV: log}
        rc, hung, printed, errors = run_fresh(sup, source, lane, device, "confirm", env)
        return rc, hung, errors, announced(printed), runtime_log_tail(log) or ""

    return rerun


class Triage:
    def __init__(
        self,
        sup: Supervisor,
        index: CorpusIndex,
        into: DirectoryCorpus,
        rerun: Rerun | None = None,
        stock: StockRerun | None = None,
    ):
        self.sup, self.index, self.into = sup, index, into
        self.rerun = rerun or local_rerun(sup)
        self.stock = stock or local_stock_rerun(sup)
        self.stock_left = MAX_STOCK_RERUNS
        self.written: dict[Signature, str] = {}
        self.claimed: dict[Signature, Finding] = {}  # new signatures -> their finding
        self.duplicate_of: dict[int, Finding] = {}  # id(duplicate) -> the finding it repeats
        self._normalized: dict[str, str] = {}

    def confirm_crash(self, f: Finding) -> None:
        """Re-run a crash in a fresh process: `flaky` when it does not die (or hang) again."""
        d = f.divergences[0]
        start = time.time()
        try:
            rc, hung, *printed = self.rerun(f.source, d["kind"].split(".")[0], d["device"])
        finally:
            self.sup.stats.time["crash confirmation"] += time.time() - start
        if rc and not hung:  # where it died (faulthandler), what it was running (announced)
            site = crash_site(printed[0], f.source) if printed else {}
            seen = dict(printed[1]) if len(printed) > 1 and isinstance(printed[1], dict) else {}
            plan = seen.pop("plan_divergences", None) or []
            if site or seen:
                facts = d.setdefault("data", {}).setdefault("facts", {})
                for k, v in (seen | site).items():
                    facts.setdefault(k, v)
            self._died_in(d, printed[0] if printed else "")
            # The plan divergences the lane found before the runtime killed it: the death is
            # theirs (causes rule (g)); classify judges them like the finding's own.
            f.divergences.extend(p for p in plan if isinstance(p, dict) and "kind" in p)
            if len(printed) > 2 and printed[2]:  # the runtime's last log lines (an abort's)
                error = f"{d['details']} (runtime log: {printed[2]})"
                d.setdefault("data", {}).setdefault("error", error)
        if hung:
            f.confirmation = "reproduced: the re-run hung too"
        elif rc != 0:
            f.confirmation = f"reproduced: the re-run died too ({signal_name(rc)})"
        else:
            f.confirmation = f"did not reproduce (the re-run exited {rc})"
            f.status = "flaky"

    @staticmethod
    def _died_in(d: dict[str, Any], stderr: str) -> None:
        """The kernel the process died in, from the native stack (fuzz.native_stack), as
        the facts "died_in" and, for the EXIR runtime, "runtime_origin" (`<op>:died`, the
        op of the program it implements): the last instruction the runtime reached."""
        kernel = died_in(stderr)
        if kernel is None:
            return
        facts = d.setdefault("data", {}).setdefault("facts", {})
        facts.setdefault("died_in", kernel)
        op = kernel_op(kernel, facts.get("ops") or ())
        if op is not None and d["kind"] == "exir.crash":
            facts.setdefault("runtime_origin", f"{op}:died")

    def classify(self, f: Finding) -> None:
        """Per divergence: known (a registered bug: by signature or MATCHES), a duplicate
        of a case this run filed, or new; the finding is new when any divergence is."""
        known: set[str] = set()
        by_sig: dict[Signature, list[dict[str, Any]]] = {}
        for d in f.divergences:
            by_sig.setdefault(signature(d["kind"], d["stage"], f.source), []).append(d)
        for s, ds in by_sig.items():
            if s in f.signatures:
                continue
            f.signatures.append(s)
            names = [self.index.known_as(d, f.source) for d in ds]
            known.update(w for ws in names for w in ws)
            if all(names):  # a signature is known when each of its divergences is
                f.sig_status[s.digest] = "known"
            elif s in self.claimed or s in self.written:
                f.sig_status[s.digest] = "duplicate"
                if s in self.claimed:
                    self.duplicate_of.setdefault(id(f), self.claimed[s])
            else:
                f.sig_status[s.digest] = "new"
        f.known_as = sorted(known)
        if "new" in f.sig_status.values():
            f.status = "new"
            for s in f.signatures:
                if f.sig_status[s.digest] == "new":
                    self.claimed.setdefault(s, f)
        elif known and not f.crash and self.new_when_explored(f) and not self.rediscovered(f):
            f.status = "drifted"
        else:
            f.status = "known" if known else "duplicate"

    def new_when_explored(self, f: Finding) -> bool:
        """Whether the first program of the finding's bucket (before shrinking) shows its
        bucket's divergence unrecognised by the corpus."""
        first = [d for d in f.first_divergences if d.get("bucket") == f.bucket]
        return bool(first) and not any(self.index.known_as(d, f.first_source) for d in first)

    def rediscovered(self, f: Finding) -> bool:
        """Whether the finding's program is a registered case's own program for its
        bucket's divergence (the same signature): the shrink found that very case."""
        d = self.primary(f)
        return self.index.known(signature(d["kind"], d["stage"], f.source)) is not None

    # -- one root cause, one case file ---------------------------------------------------
    def normalized(self, f: Finding) -> str:
        if f.source not in self._normalized:
            self._normalized[f.source] = normalize_source(f.source)
        return self._normalized[f.source]

    primary = staticmethod(primary)

    def same_cause(self, a: Finding, b: Finding) -> str:
        """Why `a` and `b` are one root cause ("" when they are not)."""
        return same_cause(a, b, self.normalized)

    def groups(self, findings: list[Finding]) -> list[list[Finding]]:
        """New findings (and their duplicates) grouped by root cause, in order."""
        members = [f for f in findings if f.status in ("new", "duplicate")]
        parent = list(range(len(members)))

        def root(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        where = {id(f): i for i, f in enumerate(members)}
        for j, b in enumerate(members):
            for i, a in enumerate(members[:j]):
                if root(i) == root(j):
                    continue
                if self.duplicate_of.get(id(b)) is a:
                    why = "a duplicate (the same signature)"
                elif a.status == "new" and b.status == "new":
                    why = self.same_cause(a, b)
                else:
                    why = ""
                if why:
                    for f in (a, b):  # the filed one's is cleared (file_group)
                        f.merge_reason = f.merge_reason or why
                    parent[root(j)] = root(i)
        out: dict[int, list[Finding]] = {}
        for f in members:
            out.setdefault(root(where[id(f)]), []).append(f)
        return [g for g in out.values() if any(f.status == "new" for f in g)]

    def file_group(self, group: list[Finding], render: Callable[[Finding], str]) -> None:
        """File the smallest new program of a group; the others are merged into it."""
        rep = min(
            (f for f in group if f.status == "new"),
            key=lambda f: (len(self.normalized(f)), len(f.source), f.bucket),
        )
        rep.absorbed = [f.bucket for f in group if f is not rep]
        rep.merge_reason = ""
        self.confirm_stock(rep)
        self.file(rep, render)
        for f in group:
            if f is not rep:
                f.merged_into = rep.path
                if f.status == "new":
                    f.status = "merged"

    def confirm_stock(self, f: Finding) -> None:
        """Re-run a finding about to be filed on the stock stacks (fuzz.campaign.stock);
        one that does not reproduce there is our speedups' bug: status harness-bug."""
        if self.sup.settings.speedups == "off":
            f.stock = "found with the speedups off (the stock stacks)"
            return
        if self.stock_left <= 0:
            f.stock = "not re-run on the stock stacks (too many findings to re-run)"
            return
        self.stock_left -= 1
        d = self.primary(f)
        start = time.time()
        try:
            rc, hung, outcome = self.stock(f.source, d["kind"].split(".")[0], d["device"])
        finally:
            self.sup.stats.time["stock re-run"] += time.time() - start
        verdict = judge(d["kind"], f.crash, rc, hung, outcome)
        f.stock = f"{verdict} with the speedups off"
        if verdict == "not reproduced":
            f.status = "harness-bug"

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
        findings = sorted(self.sup.findings.values(), key=lambda f: (f.crash, f.bucket))
        for f in findings:
            if f.crash:
                if confirm_left <= 0:
                    f.confirmation = "not re-run (too many crashes to confirm)"
                    self.sup.unconfirmed.append(f.bucket)
                else:
                    confirm_left -= 1
                    self.confirm_crash(f)
                if f.status == "flaky":
                    continue
            self.classify(f)
        for group in self.groups(findings):
            self.file_group(group, render)


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
            speedups=(hello.speedups if hello and hello.speedups else {"switch": s.speedups}),
            compat=hello.compat if hello else None,
            plugins=s.plugins,
            stock=f.stock,
            isolate=f.crash,
            absorbed=f.absorbed,
        )

    return render
