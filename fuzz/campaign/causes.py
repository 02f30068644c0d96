"""When two new findings are one root cause: the merge rule triage files by.

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
     algorithm showed it (the plan's inputs were wrong, not the algorithm), or that share
     the same number of bytes, fewer than an element (an offset computed a byte or a few
     off places any tensor so, whichever nodes), or
     exir.emission findings (size lists the emitter wrote otherwise than the graph has
     them, whichever op takes the list), or S3 out-variant findings (out= buffers that are
     not the planned ones, whichever kernel), or wrong
     values in programs with the same control flow and data-dependent ops (the same
     higher-order ops, custom ops and tagged ops such as a non-default dim order:
     `figure_key`), whatever elementwise ops surround them; or
 (e) both start at the same wrong node (facts "origin", `origin_key`): the first
     ATen node whose value the edge program gets wrong on the diverging call (EXIR; when
     the edge program is right, the first instruction the runtime gets wrong, facts
     "runtime_origin", fuzz/backends/exir/runtime_origin.py; for a process the
     runtime killed, the op of the kernel it died in, fuzz.native_stack, which counts as
     the same nature as a kernel that raises), or
     the first value of the program Thunder gets wrong (Thunder wrong results), is of
     the same op with the same nature of difference (dtype, shape or values), whatever
     kind the divergence took further down (a wrong result in one program, a short
     buffer in another: one lowering fault) and whatever shape decision flipped. A wrong
     *dtype* at a pointwise op keys on the class, not the op: pointwise ops share one
     type-promotion rule, so a promotion fault shows at mul in one program and at add
     in the next.
 (f) a Thunder cache divergence (as in (c)) that a wrong trace explains stands for that
     trace, not for the cache (`built_wrong`): rules (b) to (e) compare the wrong trace's
     divergence in its place, and (c) does not apply to it. Either the program shows, at
     a miss before the hit, a divergence the default cache gets wrong too (the trace the
     hit replays was wrong when built), or the hit is unsound at a call the default cache
     gets wrong (the fresh trace is the wrong one; the hit carries its origin). A
     lowering that decides on a size (a flip fault that copies when some flipped dim is
     1) shows both ways: a wrong trace built at a size-1 call and replayed at a later
     one, or a right trace built first and a fresh one wrong at a size-1 call. One fault,
     which was filed as an unsound hit and a wrong result until 2026-12-05
     (benchmarks/journal/2026-12-05.md, the seventeenth and eighteenth sessions).
 (g) an EXIR runtime symptom (a wrong result, a crash inside a call, a process the
     runtime killed, a contract the runtime stopped checking) in a program whose memory
     plan or emitted program diverges (exir.overlap, exir.under-allocation,
     exir.emission, or exir.aliasing's S3 out-variant: an out= argument that is not its
     output's planned buffer; not a registered bug; for a death, those the lane announced
     before the runtime ran) stands for that divergence
     (`plan_explains`): a planner that gives live bytes away corrupts values, kills the
     process or loses a check in whatever kernel reads them next, so rules (a) to (e)
     compare the plan divergence in its place. Overlaps where the planner's lifetime of
     a tensor ends before its last use (facts plan "lifetime-short") are one figure
     under (d), whichever nodes share the bytes: the planner's lifetimes are wrong.
Groups are closed transitively. `merge_reason` says which rule joined a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fuzz.backends.exir.kinds import explains_runtime
from fuzz.buckets import discriminator, node_op
from fuzz.campaign.findings import Finding
from fuzz.divergence import stage_kind, thunder_jit_kind


def primary(f: Finding) -> dict[str, Any]:
    """The divergence the finding was shrunk for (its bucket's)."""
    return next((d for d in f.divergences if d.get("bucket") == f.bucket), f.divergences[0])


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
    kind = thunder_jit_kind(kind)
    cache_only = kind == "thunder.unsound-hit" or (
        kind.startswith("thunder.")
        and data.get("control") == "agrees with eager"
        and data.get("cache_hit") is True
    )
    if not cache_only:
        return None
    return (d.get("device", "cpu"), data.get("symbolic_cache"))


_DTYPE = re.compile(r"dtype (torch\.\w+), expected (torch\.\w+)")
# ExecuTorch's Verifier naming two tensors that share bytes: "lhs: mem_id 1 storage: 76, 16
# rhs: mem_id 1 storage: 61, 16" (offset, size).
_STORAGES = re.compile(
    r"lhs: mem_id (\d+) storage: (\d+), (\d+) rhs: mem_id (\d+) storage: (\d+), (\d+)"
)
# Tensors that share fewer bytes than the smallest element (4 of float32) were placed by
# offset arithmetic that is off by a byte or a few, not by a lifetime or reuse decision.
_SUB_ELEMENT = 4


def shared_bytes(d: dict[str, Any]) -> int | None:
    """How many bytes the two tensors of a Verifier overlap share (None: not stated)."""
    m = _STORAGES.search((d.get("data") or {}).get("error") or d.get("details", ""))
    if m is None or m.group(1) != m.group(4):
        return None
    a, a_size, b, b_size = (int(m.group(k)) for k in (2, 3, 5, 6))
    return min(a + a_size, b + b_size) - max(a, b)


def figure_key(d: dict[str, Any]) -> tuple | None:
    """What rule (d) compares (module docstring); None when it does not apply."""
    data = d.get("data") or {}
    if d["kind"] == "exir.under-allocation":
        planned, actual = data.get("planned_shape"), data.get("actual_shape")
        if isinstance(planned, list) and isinstance(actual, list) and len(planned) == len(actual):
            # the dims eager needs more of (a planner one row short is one row short
            # whatever it planned for the other dims)
            short = sorted({a - p for p, a in zip(planned, actual) if a > p})
            if short:
                return (d["kind"], "short by", tuple(short))
            if data.get("planned_bytes") and data.get("actual_bytes"):  # a narrower dtype
                return (d["kind"], "bytes", data["actual_bytes"] / data["planned_bytes"])
        return None
    if d["kind"] == "exir.emission":  # the emitter writes size lists wrong, whichever op's
        return (d["kind"], "size list")
    if d["kind"] == "exir.aliasing" and explains_runtime(d["kind"], d.get("details", "")):
        return (d["kind"], "out= buffers not the planned ones")
    if d["kind"] == "exir.overlap" and "lifetime-short" in (
        (data.get("facts") or {}).get("plan") or ()
    ):
        return (d["kind"], "lifetime-short")
    shared = shared_bytes(d) if d["kind"] == "exir.overlap" else None
    if shared is not None and 0 < shared < _SUB_ELEMENT:
        return (d["kind"], f"sharing {shared} byte" + ("s" if shared > 1 else ""))
    if d["kind"] == "exir.overlap" and data.get("a") and data.get("b"):
        return (d["kind"], "between", *sorted((node_op(data["a"]), node_op(data["b"]))))
    if thunder_jit_kind(d["kind"]) in (
        "exir.runtime-result",
        "exir.edge-result",
        "thunder.wrong-result",
    ):
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
    origin, cls, where = facts.get("origin"), facts.get("origin_class"), "edge"
    if not isinstance(origin, str):  # the edge program is right: where the runtime departs
        origin, cls, where = (
            facts.get("runtime_origin"),
            facts.get("runtime_origin_class"),
            "runtime",
        )
    if not isinstance(origin, str) or ":" not in origin:
        return None
    op, nature = origin.rsplit(":", 1)
    # A kernel that kills the process (a death's origin, fuzz.native_stack) and one that
    # raises stop the run at the same op: one nature.
    nature = "raised" if nature == "died" else nature
    op = cls if nature == "dtype" and cls == "pointwise" else op
    return (d.get("device", "cpu"), where, nature, op)


def _call_index(stage: str) -> int | None:
    m = re.fullmatch(r"call\[(\d+)\]", stage or "")
    return int(m.group(1)) if m else None


def built_wrong(f: Finding) -> dict[str, Any] | None:
    """Rule (f): for a finding whose divergence is a Thunder cache divergence, the wrong
    trace it stands for: an unsound hit at a call the default cache gets wrong (the fresh
    trace is the wrong one; its origin is the hit's facts "origin"), as a wrong result at
    that call; else a divergence of its program at an earlier miss that the default cache
    gets wrong too (the trace the hit replays was wrong when built); None otherwise."""
    p = primary(f)
    hit = _call_index(p.get("stage", ""))
    if hit is None or cache_cause(p["kind"], p) is None:
        return None
    data = p.get("data") or {}
    if (
        thunder_jit_kind(p["kind"]) == "thunder.unsound-hit"
        and data.get("control") == "diverges too"
    ):
        wrong = p["kind"].replace(".unsound-hit", ".wrong-result")
        return p | {"kind": wrong, "data": data | {"cache_hit": False}}
    for d in f.divergences:
        data = d.get("data") or {}
        at = _call_index(d.get("stage", ""))
        if (
            thunder_jit_kind(d["kind"]).startswith("thunder.")
            and at is not None
            and at < hit
            and data.get("cache_hit") is False
            and data.get("control") == "diverges too"
        ):
            return d
    return None


RUNTIME_SYMPTOMS = ("exir.runtime-result", "exir.crash", "exir.unchecked-contract")


def plan_explains(f: Finding) -> dict[str, Any] | None:
    """Rule (g): for a finding whose divergence is an EXIR runtime symptom at a call (or a
    death: stage "process"), the divergence of its program that explains it (the first on
    its device that fuzz.backends.exir.kinds.explains_runtime accepts and that is not a
    registered bug); None otherwise."""
    p = primary(f)
    at_call = _call_index(p.get("stage", "")) is not None or p.get("stage") == "process"
    if p["kind"] not in RUNTIME_SYMPTOMS or not at_call:
        return None
    # Triage's classify already judged each signature of the program (f.signatures).
    known = {(s.kind, s.stage) for s in f.signatures if f.sig_status.get(s.digest) == "known"}
    for d in f.divergences:
        if explains_runtime(d["kind"], d.get("details", "")) and d.get("device") == p.get("device"):
            if (d["kind"], stage_kind(d["stage"])) not in known:
                return d
    return None


def same_cause(a: Finding, b: Finding, normalized: Callable[[Finding], str]) -> str:
    """Why `a` and `b` are one root cause ("" when they are not): the module's rule.
    `normalized` gives a finding's normalized program (triage caches it)."""
    wa, wb = built_wrong(a), built_wrong(b)
    la, lb = (None if wa else plan_explains(a)), (None if wb else plan_explains(b))
    pa, pb = wa or la or primary(a), wb or lb or primary(b)
    why = _same_cause(a, b, pa, pb, normalized)
    if why and not why.startswith("the same program"):
        if wa or wb:
            return "a wrong trace explains the cache divergence: " + why
        if la or lb:
            emitted = "exir.emission" in {(la or {}).get("kind"), (lb or {}).get("kind")}
            what = "the emitted program" if emitted else "a plan divergence"
            return f"{what} explains the runtime symptom: " + why
    return why


def _same_cause(
    a: Finding,
    b: Finding,
    pa: dict[str, Any],
    pb: dict[str, Any],
    normalized: Callable[[Finding], str],
) -> str:
    if (pa["kind"].split(".")[0], pa.get("device")) != (
        pb["kind"].split(".")[0],
        pb.get("device"),
    ):
        return ""
    if normalized(a) == normalized(b):
        return "the same program up to renaming"
    ca = cache_cause(pa["kind"], pa)
    if ca is not None and ca == cache_cause(pb["kind"], pb):
        return "a divergence of the same cache (its key misses what the trace depends on)"
    fa = figure_key(pa)
    if fa is not None and fa == figure_key(pb):
        return "the same wrong figure (" + " ".join(map(str, fa[1:])) + ")"
    oa = origin_key(pa)
    if oa is not None and oa == origin_key(pb):
        what = "instruction" if oa[1] == "runtime" else "node"
        return f"the same first wrong {what} ({oa[3]} {oa[2]})"
    ka, kb = cause_key(pa), cause_key(pb)
    if ka is None or kb is None:
        return ""
    if ka in {cause_key(d) for d in b.divergences} and kb in {cause_key(d) for d in a.divergences}:
        return "the same kind, stage and facts"
    return ""
