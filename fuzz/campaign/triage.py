"""Triage at the end of a campaign: which findings are new bugs, and filing one case
file per root cause.

For each finding (the best program of one bucket):

1. a crash (the worker process died or hung on it) is re-run in a fresh process with
   faulthandler on; one that does not die again is `flaky` and is not filed
   (`confirmation` says what happened). Where the re-run printed the Python stack, its
   innermost frame becomes the crash's `facts.at` (fuzz.procs.crash_site). At most
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

The merge rule. Two new findings of the same lane and device are one root cause when
 (a) their programs are the same up to renaming: fuzz.signature.normalize_source
     (canonical names; docstrings, metadata and calls(), i.e. the inputs, ignored) gives
     the same text, whatever their kinds; or
 (b) the divergence each was shrunk for matches a divergence of the other on every
     discriminating fact (`cause_key`): the same kind and stage kind; the same storage
     structure of the inputs (facts "inputs"); the same exception class (facts
     "error_type", when either has one); the same failing node or op (facts "at", when
     either has one; when neither has, the same ops as the lane saw them, facts "ops", so
     two runtime-result findings on different ops stay two bugs); and for a crash the
     same normalized error head (fuzz.buckets.discriminator). A fact missing on either
     side is unknown and never matches: without "inputs", or without both "at" and
     "ops", a finding merges only by (a). A process crash (no facts but where it died)
     merges only by (a); or
 (c) both are Thunder cache divergences (an unsound hit, or a result only the symbolic
     cache gets wrong, at a cache hit: the default-cache control agrees with eager) of
     the same cache (stock or fixed): the cache's key does not cover what a trace
     depends on, whatever decision kind flipped (the bucket's flipped decisions,
     fuzz.buckets, are listed as the buckets it absorbed) and whatever ops surround it.
     A fixes-off night shows the stock cache's bug (#1525) in every program that flips a
     decision, and one fault in our fix's recorder showed across six decision kinds;
     this files each once instead of once per program or per decision kind; or
 (d) both show the same wrong *figure*, whatever op it shows on: exir.under-allocation
     findings whose planned shapes are short of eager's by the same amounts (a planner
     or bound bug that is one row short is one row short at every op), or results of the
     same kind with the same wrong dtype for the same expected one (a promotion bug), or
     exir.overlap findings that overlap the same two kinds of node, whichever planning
     algorithm showed it (the plan's inputs were wrong, not the algorithm), or wrong
     values in programs with the same control flow and data-dependent ops (the same
     higher-order ops, custom ops and tagged ops such as a non-default dim order:
     `figure_key`), whatever elementwise ops surround them; or
 (e) both start at the same wrong node (facts "origin", `origin_key`, EXIR): the first
     ATen node whose value the edge program gets wrong on the diverging call is of the
     same op with the same nature of difference (dtype, shape or values), whatever
     kind the divergence took further down (a wrong result in one program, a short
     buffer in another: one lowering fault). A wrong *dtype* at a pointwise op keys on
     the class, not the op: pointwise ops share one type-promotion rule, so a promotion
     fault shows at mul in one program and at add in the next.
Groups are closed transitively. `merge_reason` says which rule joined a finding.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fuzz.buckets import discriminator, node_op
from fuzz.campaign.findings import Finding, render_finding
from fuzz.campaign.protocol import sha
from fuzz.campaign.supervisor import Supervisor
from fuzz.corpus import CorpusIndex, DirectoryCorpus, safe_name
from fuzz.divergence import stage_kind
from fuzz.procs import child_env, crash_site, run_isolated, signal_name
from fuzz.signature import Signature, normalize_source, signature

MAX_CONFIRMATIONS = 8

# (source, lane, device) -> (rc, hung), or (rc, hung, stderr: faulthandler's dump, the
# facts the lane announced before it died: fuzz.facts.announced)
Rerun = Callable[[str, str, str], tuple]


def cause_key(d: dict[str, Any]) -> tuple | None:
    """What rule (b) compares (module docstring); None when the facts do not tell."""
    facts = (d.get("data") or {}).get("facts")
    if not isinstance(facts, dict) or d.get("stage") == "process":
        return None
    inputs, at, ops = facts.get("inputs"), facts.get("at"), facts.get("ops")
    if not isinstance(inputs, list):
        return None
    if at:
        where: tuple = ("at", str(at))
    elif ops:
        where = ("ops", tuple(ops))
    else:
        return None
    head = discriminator(d) if d["kind"].endswith(".crash") else ""
    kind, stage, device = d["kind"], stage_kind(d["stage"]), d.get("device", "cpu")
    return (kind, stage, device, tuple(inputs), facts.get("error_type"), where, head)


def cache_cause(kind: str, d: dict[str, Any]) -> tuple | None:
    """What rule (c) compares (module docstring); None when it does not apply."""
    data = d.get("data") or {}
    cache_only = kind == "thunder.unsound-hit" or (
        kind.startswith("thunder.")
        and data.get("control") == "agrees with eager"
        and data.get("cache_hit") is True
    )
    if not cache_only:
        return None
    return (d.get("device", "cpu"), data.get("symbolic_cache"))


_DTYPE = re.compile(r"dtype (torch\.\w+), expected (torch\.\w+)")


def figure_key(d: dict[str, Any]) -> tuple | None:
    """What rule (d) compares (module docstring); None when it does not apply."""
    data = d.get("data") or {}
    if d["kind"] == "exir.under-allocation":
        planned, actual = data.get("planned_shape"), data.get("actual_shape")
        if isinstance(planned, list) and isinstance(actual, list) and len(planned) == len(actual):
            short = sorted({a - p for p, a in zip(planned, actual) if a != p})
            if short:
                return (d["kind"], "short by", tuple(short))
            if data.get("planned_bytes") and data.get("actual_bytes"):  # a narrower dtype
                return (d["kind"], "bytes", data["actual_bytes"] / data["planned_bytes"])
        return None
    if d["kind"] == "exir.overlap" and data.get("a") and data.get("b"):
        return (d["kind"], "between", *sorted((node_op(data["a"]), node_op(data["b"]))))
    if d["kind"] in ("exir.runtime-result", "thunder.wrong-result"):
        if m := _DTYPE.search(d.get("details", "")):
            return (d["kind"], "dtype", m.group(1), m.group(2))
        # Wrong values in programs whose control flow or data-dependent ops are the same:
        # the construct, not the elementwise ops around it, is what the 1-minimal
        # programs share (a cond that jumps wrong is wrong whatever its branches compute).
        structural = sorted(
            op
            for op in ((data.get("facts") or {}).get("ops") or ())
            if op.startswith(("higher_order.", "fuzz.")) or ":" in op
        )
        if structural:
            return (d["kind"], stage_kind(d["stage"]), "around", *structural)
    return None


def origin_key(d: dict[str, Any]) -> tuple | None:
    """What rule (e) compares (module docstring); None without an origin."""
    facts = (d.get("data") or {}).get("facts") or {}
    origin, cls = facts.get("origin"), facts.get("origin_class")
    if not isinstance(origin, str) or ":" not in origin:
        return None
    op, nature = origin.rsplit(":", 1)
    return (d.get("device", "cpu"), nature, cls if nature == "dtype" and cls == "pointwise" else op)


def local_rerun(sup: Supervisor) -> Rerun:
    """Crash confirmation on this machine: `python -m fuzz.outcome` in a fresh process."""
    s = sup.settings

    def rerun(source: str, lane: str, device: str) -> tuple[int | None, bool, str, dict]:
        from fuzz.facts import ANNOUNCE_ENV, announced  # imports torch: only when needed

        path = s.out / "scratch" / f"confirm-{sha(source)[:12]}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        cmd = [sys.executable, "-m", "fuzz.outcome", str(path), lane, device, "--fixes", s.fixes]
        for p in s.plugins:
            cmd += ["--plugin", p]
        printed: list[str] = []
        errors: list[str] = []
        env = child_env() | {ANNOUNCE_ENV: "1"}
        try:
            rc, hung = run_isolated(cmd, env, s.example_timeout, printed, errors)
            return rc, hung, "".join(errors), announced("".join(printed))
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
            seen = printed[1] if len(printed) > 1 and isinstance(printed[1], dict) else {}
            if site or seen:
                facts = d.setdefault("data", {}).setdefault("facts", {})
                for k, v in (seen | site).items():
                    facts.setdefault(k, v)
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

    @staticmethod
    def primary(f: Finding) -> dict[str, Any]:
        return next((d for d in f.divergences if d.get("bucket") == f.bucket), f.divergences[0])

    def same_cause(self, a: Finding, b: Finding) -> str:
        """Why `a` and `b` are one root cause ("" when they are not): the module's rule."""
        pa, pb = self.primary(a), self.primary(b)
        if (pa["kind"].split(".")[0], pa.get("device")) != (
            pb["kind"].split(".")[0],
            pb.get("device"),
        ):
            return ""
        if self.normalized(a) == self.normalized(b):
            return "the same program up to renaming"
        ca = cache_cause(a.item[0], pa)
        if ca is not None and ca == cache_cause(b.item[0], pb):
            return "a divergence of the same cache (its key misses what the trace depends on)"
        fa = figure_key(pa)
        if fa is not None and fa == figure_key(pb):
            return "the same wrong figure (" + " ".join(map(str, fa[1:])) + ")"
        oa = origin_key(pa)
        if oa is not None and oa == origin_key(pb):
            return f"the same first wrong node ({oa[2]} {oa[1]})"
        ka, kb = cause_key(pa), cause_key(pb)
        if ka is None or kb is None:
            return ""
        if ka in {cause_key(d) for d in b.divergences} and kb in {
            cause_key(d) for d in a.divergences
        }:
            return "the same kind, stage and facts"
        return ""

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
        self.file(rep, render)
        for f in group:
            if f is not rep:
                f.merged_into = rep.path
                if f.status == "new":
                    f.status = "merged"

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
            isolate=f.crash,
            absorbed=f.absorbed,
        )

    return render
