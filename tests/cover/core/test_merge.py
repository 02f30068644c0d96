"""One finding per root cause: triage merges findings of one bug into one case file
(fuzz/campaign/triage.py), calls a shrink that slid onto a registered bug "drifted", and
a process crash is told apart by where it died (faulthandler, fuzz.procs.crash_site)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fuzz.buckets import bucket_of
from fuzz.campaign import triage as triage_module
from fuzz.campaign.example import leads
from fuzz.campaign.findings import Finding
from fuzz.campaign.protocol import Hello, LaneStart, Start
from fuzz.campaign.report import build_report
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.supervisor import Supervisor
from fuzz.campaign.triage import Triage, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.divergence import KINDS
from fuzz.procs import child_env, crash_site, run_isolated
from tests.cover.campaign.test_campaign_parts import _settings as campaign_settings

CALLS = "\n\ndef calls():\n    return [(torch.randn({n}, 3),)]\n"


def _program(body: str, n: int = 2) -> str:
    return "import torch\n\n\n" + body.strip() + "\n" + CALLS.format(n=n)


AMAX = _program("def program(x0):\n    v1 = torch.amax(x0, 1)\n    return (v1,)\n")
# The same program up to renaming (and other inputs).
AMAX_RENAMED = _program("def program(a):\n    t = torch.amax(a, 1)\n    return (t,)\n", n=5)
NONZERO = _program("def program(x0):\n    v1 = torch.nonzero(x0)\n    return (v1,)\n")
NONZERO_SUM = _program(
    "def program(x0):\n    v1 = torch.nonzero(x0)\n    v2 = v1.sum()\n    return (v2,)\n"
)


def _settings(tmp_path: Path):
    return campaign_settings(tmp_path, lanes=("exir",), fixes="on")


def _div(kind: str, stage: str, bucket: str, details: str = "differs", **facts) -> dict:
    data = {"facts": facts} if facts else {}
    return {
        "kind": kind,
        "stage": stage,
        "details": details,
        "device": "cpu",
        "data": data,
        "lane": kind.split(".")[0],
        "bucket": bucket,
    }


def _finding(
    bucket: str, source: str, *divergences: dict, first: str | None = None, first_divs=None
) -> Finding:
    f = Finding(bucket, source, list(divergences), True, "worker-0.0", shrunk="yes, 1-minimal")
    f.first_source, f.first_divergences = first or source, first_divs or list(divergences)
    return f


def _stock_shows_it(source: str, lane: str, device: str):
    """A stock re-run (fuzz.campaign.stock) that dies like a crash and shows every kind."""
    return 1, False, {"status": "divergence", "divergences": [{"kind": k} for k in KINDS]}


def _triage(tmp_path: Path, findings: list[Finding], corpus: list[Path] = ()) -> Supervisor:
    sup = Supervisor(_settings(tmp_path))
    for f in findings:
        sup.findings[f.bucket] = f
    into = DirectoryCorpus(tmp_path / "cases")
    index = CorpusIndex.of([*(DirectoryCorpus(c) for c in corpus), into])
    Triage(sup, index, into, rerun=lambda *a: (0, False), stock=_stock_shows_it).run(renderer(sup))
    return sup


def _cases(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cases").glob("*.py"))


def test_findings_whose_programs_are_the_same_up_to_renaming_are_one_case(tmp_path):
    under = "exir.under-allocation@memory-planning#aten_amax"
    a = _finding(
        under,
        AMAX_RENAMED + "\n# a longer file, the same program\n",
        _div("exir.under-allocation", "memory-planning", under),
    )
    b = _finding(
        "exir.runtime-result@call#reduction|if-lt",
        AMAX,
        _div("exir.runtime-result", "call[2]", "exir.runtime-result@call#reduction|if-lt"),
    )
    # The same kind and program as b: the same signature, a duplicate of it.
    c = _finding(
        "exir.runtime-result@call#reduction|no-flip",
        AMAX_RENAMED,
        _div("exir.runtime-result", "call[0]", "exir.runtime-result@call#reduction|no-flip"),
    )
    sup = _triage(tmp_path, [a, b, c])
    (case,) = _cases(tmp_path)
    # The smallest program is filed; the others are merged into it, not dropped.
    assert (b.status, a.status, c.status) == ("new", "merged", "duplicate")
    assert b.path == str(case) and a.merged_into == c.merged_into == str(case)
    assert a.merge_reason == "the same program up to renaming"
    assert sorted(b.absorbed) == sorted([a.bucket, c.bucket])
    assert a.bucket in case.read_text()  # the case file says which buckets it absorbed
    doc = build_report(sup)
    assert doc["exit"] == 1 and doc["new_cases"] == [str(case)]
    assert len(doc["findings"]) == 3
    (bug,) = doc["distinct_bugs"]
    assert bug["path"] == str(case) and bug["findings"] == 3
    assert {p["bucket"] for p in bug["programs"]} == {a.bucket, b.bucket, c.bucket}
    text = render_markdown(doc)
    assert "1 distinct new bug(s) (3 findings)" in text
    assert f"merged into `{case}`" in text


def test_a_program_shown_by_two_lanes_is_two_bugs(tmp_path):
    a = _finding(
        "exir.crash@to_edge#E", AMAX, _div("exir.crash", "to_edge", "exir.crash@to_edge#E")
    )
    b = _finding(
        "thunder.crash@call#E",
        AMAX_RENAMED,
        _div("thunder.crash", "call[0]", "thunder.crash@call#E"),
    )
    _triage(tmp_path, [a, b])
    assert (a.status, b.status) == ("new", "new") and len(_cases(tmp_path)) == 2


SPEC = "exir.spec-meta"
FACTS = {"inputs": [], "dtypes": ["float32"], "ops": ["aten.nonzero.default"]}


def test_findings_with_the_same_kind_stage_and_facts_are_merged(tmp_path):
    a = _finding(
        f"{SPEC}@spec-prop#aten_nonzero",
        NONZERO,
        _div(
            SPEC, "spec-prop", f"{SPEC}@spec-prop#aten_nonzero", at="aten.nonzero.default", **FACTS
        ),
    )
    b = _finding(
        f"{SPEC}@spec-prop#aten_nonzero_x",
        NONZERO_SUM,
        _div(
            SPEC,
            "spec-prop",
            f"{SPEC}@spec-prop#aten_nonzero_x",
            at="aten.nonzero.default",
            **(FACTS | {"ops": ["aten.nonzero.default", "aten.sum.default"]}),
        ),
    )
    _triage(tmp_path, [a, b])
    assert len(_cases(tmp_path)) == 1
    assert (a.status, b.status) == ("new", "merged")
    assert b.merge_reason == "the same kind, stage and facts" and b.merged_into == a.path


@pytest.mark.parametrize(
    "other",
    [
        {"at": "aten.masked_select.default"},  # another failing node: another bug
        {"at": "aten.nonzero.default", "inputs": ["same-tensor"]},  # other input structure
        {"at": "aten.nonzero.default", "error_type": "RuntimeError"},  # present on one side
        {"at": None, "inputs": None},  # unknown facts never match
    ],
)
def test_findings_whose_facts_differ_or_are_unknown_stay_apart(tmp_path, other):
    facts_a = FACTS | {"at": "aten.nonzero.default"}
    facts_b = {k: v for k, v in (facts_a | other).items() if v is not None}
    a = _finding(
        f"{SPEC}@spec-prop#a", NONZERO, _div(SPEC, "spec-prop", f"{SPEC}@spec-prop#a", **facts_a)
    )
    b = _finding(
        f"{SPEC}@spec-prop#b",
        NONZERO_SUM,
        _div(SPEC, "spec-prop", f"{SPEC}@spec-prop#b", **facts_b),
    )
    _triage(tmp_path, [a, b])
    assert (a.status, b.status) == ("new", "new") and len(_cases(tmp_path)) == 2


def test_runtime_results_on_different_ops_are_two_bugs(tmp_path):
    kind = "exir.runtime-result"
    a = _finding(
        f"{kind}@call#a",
        AMAX,
        _div(kind, "call[1]", f"{kind}@call#a", inputs=[], ops=["aten.amax"]),
    )
    b = _finding(
        f"{kind}@call#b",
        NONZERO,
        _div(kind, "call[1]", f"{kind}@call#b", inputs=[], ops=["aten.nonzero"]),
    )
    c = _finding(
        f"{kind}@call#c",
        NONZERO_SUM,
        _div(kind, "call[0]", f"{kind}@call#c", inputs=[], ops=["aten.amax"]),
    )
    _triage(tmp_path, [a, b, c])
    assert len(_cases(tmp_path)) == 2
    assert (a.status, b.status, c.status) == ("new", "new", "merged")


def test_a_finding_that_shrank_onto_a_registered_bug_drifted_and_fails_the_night(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    # A registered bug recognised by its pattern (the details), in any program.
    (corpus / "registered_amax.py").write_text(
        '"""A registered bug."""\n\n'
        + AMAX
        + '\nMATCHES = ({"kind": "exir.runtime-result", "details": "registered-bug"},)\n'
    )
    bucket = "exir.runtime-result@call#reduction|no-flip"
    explored = _div("exir.runtime-result", "call[1]", bucket, details="something else")
    shrunk = _div("exir.runtime-result", "call[1]", bucket, details="the registered-bug")
    f = _finding(bucket, AMAX_RENAMED, shrunk, first=NONZERO_SUM, first_divs=[explored])
    sup = _triage(tmp_path, [f], [corpus])
    assert f.status == "drifted" and f.known_as and not _cases(tmp_path)
    doc = build_report(sup)
    assert doc["exit"] == 1 and doc["drifted"] == [bucket]
    assert doc["findings"][0]["first_source"] == NONZERO_SUM
    text = render_markdown(doc)
    assert "Drifted" in text and "v1.sum()" in text  # the explored program is shown
    # Registered when explored too: plainly known.
    g = _finding(bucket, AMAX_RENAMED, shrunk, first=NONZERO_SUM)
    (tmp_path / "again").mkdir()
    sup = _triage(tmp_path / "again", [g], [corpus])
    doc = build_report(sup)
    assert g.status == "known" and doc["exit"] != 1
    # No case file holds a known finding's program: the report does, to be audited.
    assert doc["findings"][0]["path"] is None
    assert doc["findings"][0]["source"] == AMAX_RENAMED


def test_a_shrink_that_rediscovers_a_registered_case_is_known_not_drifted(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    # The corpus registers the shrunk program itself (its signature, from FOUND).
    (corpus / "registered_amax.py").write_text(
        '"""A registered bug."""\n\n' + AMAX + '\nFOUND = ("exir.runtime-result@call",)\n'
    )
    bucket = "exir.runtime-result@call#reduction|no-flip"
    d = _div("exir.runtime-result", "call[1]", bucket)
    f = _finding(bucket, AMAX_RENAMED, d, first=NONZERO_SUM)
    sup = _triage(tmp_path, [f], [corpus])
    assert f.status == "known" and build_report(sup)["exit"] != 1


def test_the_shrink_target_excludes_what_a_registered_pattern_recognises():
    bucket = "exir.runtime-result@call#x"
    new = {"bucket": bucket, "kind": "exir.runtime-result"}
    by_pattern = {"bucket": bucket, "known_as": ["corpus/x.py"]}
    by_program = by_pattern | {"registered_program": True}
    # The bucket being shrunk: a candidate whose divergence a pattern recognises is not
    # an improvement; one that is a registered case's own program is.
    assert leads([by_pattern], set(), bucket) == []
    assert leads([by_pattern, new], set(), bucket) == [bucket]
    assert leads([by_program], set(), bucket) == [bucket]
    # Another bucket met on the way: registered either way, no lead.
    assert leads([by_program], set(), "exir.crash@call#E") == []


ABORT = (
    "import os\n"
    "def {name}():\n"
    "    os.abort()\n"
    "def outer():\n"
    "    {name}()\n"
    "print('RUNNING', flush=True)\n"
    "outer()\n"
)


def _abort(name: str) -> str:
    """What a child that aborts inside `name` prints on stderr (faulthandler is on)."""
    printed: list[str] = []
    src = ABORT.format(name=name)
    rc, hung = run_isolated([sys.executable, "-c", src], child_env(), 30, errors=printed)
    assert rc == -6 and not hung
    return printed[0]


def test_faulthandler_names_the_frame_a_process_died_in_and_buckets_keep_it():
    site = crash_site(_abort("blow_up"), ABORT.format(name="blow_up"))
    assert site["at"] == "program:blow_up" and site["frames"][1] == "program:outer"
    assert "line" not in site["at"] and "0x" not in " ".join(site["frames"])
    crash = {"kind": "exir.crash", "stage": "process", "details": "died (SIGABRT)"}
    one = bucket_of(crash | {"data": {"signal": "SIGABRT", "facts": site}})
    other = bucket_of(
        crash | {"data": {"signal": "SIGABRT", "facts": crash_site(_abort("explode"))}}
    )
    assert one == "exir.crash@process#SIGABRT|program:blow_up"
    assert one != other  # two different aborts in one night: two buckets


def test_a_dead_worker_is_bucketed_by_where_its_log_says_it_died(tmp_path):
    sup = Supervisor(_settings(tmp_path))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    sup.on_message(slot, Start(1, "explore", "sha1", AMAX))
    sup.on_message(slot, LaneStart("exir", "cpu"))
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / f"{slot.name}.log").write_text("starting\n" + _abort("kernel_check"))
    sup.ended(slot, -6)
    (finding,) = sup.findings.values()
    assert finding.bucket == "exir.crash@process#SIGABRT|program:kernel_check"
    assert finding.divergences[0]["data"]["facts"]["at"] == "program:kernel_check"


def test_crash_confirmation_records_the_frame_and_counts_what_it_did_not_rerun(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(triage_module, "MAX_CONFIRMATIONS", 1)
    sup = Supervisor(_settings(tmp_path))
    crashes = []
    for name, src in (("a", AMAX), ("b", NONZERO)):
        d = _div("exir.crash", "process", f"exir.crash@process#SIGABRT{name}", "died (SIGABRT)")
        f = Finding(d["bucket"], src, [d], False, "worker-0.0", crash=True)
        sup.findings[f.bucket] = f
        crashes.append(f)

    def rerun(source, lane, device):
        return -6, False, _abort("in_the_kernel")

    into = DirectoryCorpus(tmp_path / "cases")
    Triage(sup, CorpusIndex(), into, rerun, stock=_stock_shows_it).run(renderer(sup))
    first, second = crashes
    assert first.confirmation.startswith("reproduced")
    assert first.divergences[0]["data"]["facts"]["at"] == "program:in_the_kernel"
    assert "not re-run" in second.confirmation and sup.unconfirmed == [second.bucket]
    doc = build_report(sup)
    assert doc["unconfirmed_crashes"] == [second.bucket]
    assert "1 crash(es) not re-run" in render_markdown(doc)


def test_which_program_input_was_under_allocated_is_one_bucket():
    def under(node):
        return bucket_of(
            {"kind": "exir.under-allocation", "stage": "call[1]", "data": {"node": node}}
        )

    assert under("x0") == under("x1") == under("x2") != under("aten_mm_default")
    assert under("aten_mm_default_3") == under("aten_mm_default") != under("gt")


def test_cache_divergences_of_one_cache_are_one_bug(tmp_path):
    """Rule (c): the cache's key misses what a trace depends on; an unsound hit and a
    cache-only wrong result at a hit are one bug whatever decision kind flipped, while a
    result the default cache gets wrong too is not a cache bug, and the other cache's
    divergences are another bug."""
    hit, wrong = "thunder.unsound-hit", "thunder.wrong-result"
    cache_only = {"control": "agrees with eager", "cache_hit": True, "symbolic_cache": "fixed"}

    def finding(kind, disc, source, **data):
        d = _div(kind, "call[1]", f"{kind}@call#{disc}", inputs=[], ops=[disc])
        d["data"].update(data)
        return _finding(f"{kind}@call#{disc}", source, d)

    a = finding(hit, "ltorch.neg|if-lt", AMAX, symbolic_cache="fixed")
    b = finding(wrong, "cache-only|if-lt", NONZERO, **cache_only)
    c = finding(hit, "ltorch.add|if-mod", NONZERO_SUM, symbolic_cache="fixed")
    stock = finding(
        hit,
        "ltorch.sub|if-eq",
        _program("def program(x0):\n    return (x0.sin(),)\n"),
        symbolic_cache="stock",
    )
    shared = finding(
        wrong,
        "shared|if-lt",
        _program("def program(x0):\n    return (x0.exp(),)\n"),
        **(cache_only | {"control": "diverges too"}),
    )
    _triage(tmp_path, [a, b, c, stock, shared])
    assert sorted(f.status for f in (a, b, c)) == ["merged", "merged", "new"]
    assert "same cache" in (a.merge_reason or b.merge_reason)
    assert (stock.status, shared.status) == ("new", "new") and len(_cases(tmp_path)) == 3


def _thunder_div(kind, stage, disc, control, cache_hit, origin=None) -> dict:
    """A Thunder divergence as the flip fault's night recorded it: the ops, the default
    cache's control, whether the call hit; an origin only where a fresh trace is wrong (an
    unsound hit has none)."""
    d = _div(kind, stage, f"{kind}@call#{disc}", inputs=[], ops=["torch.flip"])
    if origin:
        d["data"]["facts"].update(origin=origin, origin_class=origin.split(":")[0])
    d["data"].update(control=control, cache_hit=cache_hit, symbolic_cache="fixed")
    return d


def test_a_hit_that_replays_a_trace_wrong_when_built_is_the_wrong_trace_bug(tmp_path):
    """Rule (f), from the flip fault's night (seed 1, seventeenth session): a lowering that
    copies when a flipped dim is 1 builds a wrong trace at call 0 (the default cache gets
    it wrong too), and call 2's hit with other sizes replays it. The unsound hit and the
    wrong result are one bug, not a cache bug: it does not join another cache divergence,
    and a hit after a call the default cache gets right stays a cache bug."""
    hit, wrong = "thunder.unsound-hit", "thunder.wrong-result"

    def div(kind, stage, disc, control, cache_hit, origin="flip_dims:values"):
        return _thunder_div(kind, stage, disc, control, cache_hit, origin)

    def unsound(source, control_at_0, origin="flip_dims:values"):
        built = div(wrong, "call[0]", "shared|no-flip", control_at_0, False, origin)
        d = div(hit, "call[2]", "torch.flip|no-flip", "agrees with eager", None, None)
        return _finding(f"{hit}@call#torch.flip|no-flip", source, built, d)

    replayed = unsound(NONZERO_SUM, "diverges too")  # the larger: merged, not filed
    wrong_result = _finding(
        f"{wrong}@call#shared|no-flip",
        NONZERO,
        div(wrong, "call[0]", "shared|no-flip", "diverges too", False),
        div(wrong, "call[1]", "shared|no-flip", "diverges too", True),
    )
    # Another cache divergence of the same cache: (c) would have joined it to the hit.
    other_cache = _finding(
        f"{wrong}@call#cache-only|if-lt",
        AMAX,
        div(wrong, "call[1]", "cache-only|if-lt", "agrees with eager", True, "neg:values"),
    )
    other_cache.divergences[0]["data"]["facts"]["ops"] = ["torch.neg"]
    replayed.divergences[1]["details"] = "cache hit ran a cached execution trace that differs"
    sup = _triage(tmp_path, [replayed, wrong_result, other_cache])
    assert sorted(f.status for f in (replayed, wrong_result)) == ["merged", "new"]
    assert "a wrong trace explains" in (replayed.merge_reason or wrong_result.merge_reason)
    assert other_cache.status == "new" and len(_cases(tmp_path)) == 2
    # The report describes each finding by its own divergence (the hit), not by the
    # wrong result its program shows first.
    (line,) = [
        line
        for line in render_markdown(build_report(sup)).splitlines()
        if f"`{replayed.bucket}`:" in line
    ]
    assert "cache hit ran a cached execution trace" in line, line


@pytest.mark.parametrize(
    "control_at_0, origin",
    [
        ("agrees with eager", "flip_dims:values"),  # call 0 right: the hit is the cache's
        ("diverges too", "roll:values"),  # built wrong, but at another node
    ],
)
def test_a_hit_is_not_joined_to_a_wrong_trace_it_does_not_replay(tmp_path, control_at_0, origin):
    hit, wrong = "thunder.unsound-hit", "thunder.wrong-result"

    div = _thunder_div

    built = div(wrong, "call[0]", "x|no-flip", control_at_0, False, origin)
    built["data"]["facts"]["ops"] = sorted(
        {"torch.flip", "torch." + origin.split(":")[0].split("_")[0]}
    )
    unsound = _finding(
        f"{hit}@call#torch.flip|no-flip",
        AMAX,
        div(hit, "call[2]", "torch.flip|no-flip", "agrees with eager", None),
        built,
    )
    wrong_result = _finding(
        f"{wrong}@call#shared|no-flip",
        NONZERO,
        div(wrong, "call[0]", "shared|no-flip", "diverges too", False, "flip_dims:values"),
    )
    _triage(tmp_path, [unsound, wrong_result])
    assert (unsound.status, wrong_result.status) == ("new", "new"), (
        unsound.merge_reason or wrong_result.merge_reason
    )


def test_the_same_wrong_figure_on_different_ops_is_one_bug(tmp_path):
    """Rule (d): a planner one row short is one row short at every op; a promotion bug
    gives the same wrong dtype wherever it shows. Another shortfall, or another dtype
    pair, is another bug."""
    under, result = "exir.under-allocation", "exir.runtime-result"

    def finding(kind, disc, source, details="differs", **data):
        d = _div(kind, "call[0]", f"{kind}@call#{disc}", details, inputs=[], at=disc)
        d["data"].update(data)
        return _finding(f"{kind}@call#{disc}", source, d)

    short = [
        finding(under, "x1", AMAX, planned_shape=[3, 4], actual_shape=[3, 5]),
        finding(under, "narrow", NONZERO, planned_shape=[7, 7, 7], actual_shape=[8, 8, 8]),
        finding(under, "sum", NONZERO_SUM, planned_shape=[2], actual_shape=[4]),
    ]
    dtype = [
        finding(
            result,
            "mul",
            AMAX_RENAMED.replace("amax", "amin"),
            "output 1: dtype torch.int64, expected torch.float32",
        ),
        finding(
            result,
            "add",
            AMAX.replace("amax", "sum"),
            "output 0: dtype torch.int64, expected torch.float32",
        ),
        finding(
            result,
            "div",
            AMAX.replace("amax", "prod"),
            "output 0: dtype torch.bool, expected torch.float32",
        ),
    ]
    _triage(tmp_path, short + dtype)
    assert sorted(f.status for f in short[:2]) == ["merged", "new"]
    assert short[2].status == "new"  # two rows short: another figure
    assert sorted(f.status for f in dtype[:2]) == ["merged", "new"]
    assert dtype[2].status == "new"
    assert len(_cases(tmp_path)) == 4


def test_overlaps_of_the_same_two_kinds_of_node_are_one_bug_whatever_the_algorithm(tmp_path):
    kind = "exir.overlap"

    def finding(algo, a, b, source):
        stage, bucket = f"memory-planning[{algo}]", f"{kind}@{algo}#{a}-{b}"
        d = _div(kind, stage, bucket, inputs=[], ops=[f"aten.{a}", f"aten.{b}"])
        d["data"].update(a=a, b=b, algo=algo)
        return _finding(bucket, source, d)

    greedy = finding("greedy", "alloc", "aten_view_copy_default", AMAX)
    naive = finding("naive", "aten_view_copy_default_1", "alloc_2", NONZERO)
    other = finding("naive", "aten_mul_tensor", "alloc", NONZERO_SUM)
    _triage(tmp_path, [greedy, naive, other])
    assert sorted(f.status for f in (greedy, naive)) == ["merged", "new"]
    assert other.status == "new" and len(_cases(tmp_path)) == 2


def _liveness_finding(kind: str, stage: str, ops: list[str], source: str, a: str, b: str):
    """A program of a planner liveness fault: its symptom `kind` at `stage`, and the
    overlap of two tensors whose planned lifetimes end early (facts plan lifetime-short)."""
    facts = {"inputs": [], "ops": ops, "plan": ["lifetime-short"]}
    overlap = _div("exir.overlap", "memory-planning[greedy]", "overlap", **facts)
    overlap["data"].update(a=a, b=b, algo="greedy")
    bucket = f"{kind}@{stage}#{ops[0]}"
    symptom = _div(kind, stage, bucket, "differs", at=ops[0], **facts)
    overlap["bucket"] = f"exir.overlap@greedy#{a}-{b}"
    return _finding(bucket, source, symptom, overlap)


def test_runtime_symptoms_of_one_plan_fault_are_its_one_bug(tmp_path):
    """Rule (g): a liveness fault gives a wrong result in one program, a crash in another
    and an overlap in a third, between other nodes each time; the plan divergence each
    program shows explains its symptom, and overlaps of a lifetime-short plan are one
    figure. A wrong result in a program whose plan is right stays its own bug."""
    cat = _liveness_finding(
        "exir.runtime-result", "call[0]", ["aten.cat.default"], AMAX, "alloc", "aten_mul"
    )
    crash = _liveness_finding(
        "exir.crash", "call[1]", ["aten.stack.default"], NONZERO, "alloc_3", "aten_add"
    )
    overlap_only = _liveness_finding(
        "exir.overlap", "memory-planning[greedy]", ["aten.sum.default"], NONZERO_SUM, "x", "y"
    )
    overlap_only.divergences = [overlap_only.divergences[1]]
    overlap_only.bucket = overlap_only.divergences[0]["bucket"]
    plain = _finding(
        "exir.runtime-result@call#sort",
        AMAX.replace("amax", "sort"),
        _div(
            "exir.runtime-result",
            "call[0]",
            "exir.runtime-result@call#sort",
            inputs=[],
            ops=["aten.sort.default"],
            at="aten.sort.default",
        ),
    )
    _triage(tmp_path, [cat, crash, overlap_only, plain])
    assert sorted(f.status for f in (cat, crash, overlap_only)) == ["merged", "merged", "new"]
    assert plain.status == "new" and len(_cases(tmp_path)) == 2
    merged = [f for f in (cat, crash, overlap_only) if f.status == "merged"]
    assert any(f.merge_reason.startswith("a plan divergence explains") for f in merged)


def test_a_registered_plan_bug_explains_no_new_symptom():
    """A plan divergence that is a registered bug does not stand for a new symptom of the
    same program (merging on it would join unrelated new bugs that share a known one)."""
    from fuzz.campaign.causes import plan_explains
    from fuzz.signature import signature

    f = _liveness_finding(
        "exir.runtime-result", "call[0]", ["aten.cat.default"], AMAX, "alloc", "aten_mul"
    )
    overlap = f.divergences[1]
    assert plan_explains(f) is overlap
    sig = signature(overlap["kind"], overlap["stage"], f.source)
    f.signatures.append(sig)
    f.sig_status[sig.digest] = "known"
    assert plan_explains(f) is None
    f.signatures.clear()
    f.sig_status.clear()
    f.divergences[0]["stage"] = "memory-planning[greedy]"  # not a symptom at a call
    assert plan_explains(f) is None


def test_wrong_values_around_the_same_control_flow_are_one_bug(tmp_path):
    """A cond that jumps wrong gives wrong values whatever its branches compute; two
    conds (another construct) or no control flow at all stay apart."""
    kind = "exir.runtime-result"

    def finding(name, ops, source):
        d = _div(
            kind, "call[1]", f"{kind}@call#{name}", "output 0: values differ", inputs=[], ops=ops
        )
        return _finding(f"{kind}@call#{name}", source, d)

    a = finding("a", ["aten.add.Tensor", "higher_order.cond"], AMAX)
    b = finding("b", ["aten.mul.Tensor", "aten.sum.default", "higher_order.cond"], NONZERO)
    two = finding(
        "c", ["aten.mul.Tensor", "higher_order.cond", "higher_order.cond x2"], NONZERO_SUM
    )
    flat = finding("d", ["aten.neg.default"], AMAX_RENAMED.replace("amax", "amin"))
    flat2 = finding("e", ["aten.exp.default"], AMAX.replace("amax", "sum"))
    _triage(tmp_path, [a, b, two, flat, flat2])
    assert sorted(f.status for f in (a, b)) == ["merged", "new"]
    assert (two.status, flat.status, flat2.status) == ("new", "new", "new")


def test_divergences_that_start_at_the_same_wrong_node_are_one_bug(tmp_path):
    """Rule (e): a lowering fault located at the same first wrong node is one bug whatever
    kind it took further down (a wrong result here, a short buffer there); a wrong dtype
    at any pointwise op is one promotion rule. Another nature, another view op, or wrong
    values at another pointwise op stay apart."""

    def finding(kind, name, source, origin, cls, **data):
        d = _div(kind, "call[0]", f"{kind}@call#{name}", inputs=[], at=name, ops=[name])
        d["data"]["facts"].update(origin=origin, origin_class=cls)
        d["data"].update(data)
        return _finding(f"{kind}@call#{name}", source, d)

    result, under = "exir.runtime-result", "exir.under-allocation"
    mul = finding(result, "mul", AMAX, "aten.mul.Tensor:dtype", "pointwise")
    add = finding(under, "add", NONZERO, "aten.add.Tensor:dtype", "pointwise")
    transpose = finding(result, "t", NONZERO_SUM, "aten.transpose.int:shape", "view")
    transpose_short = finding(
        under, "narrow", AMAX_RENAMED.replace("amax", "amin"), "aten.transpose.int:shape", "view"
    )
    permute = finding(
        result, "p", AMAX.replace("amax", "sum"), "aten.permute.default:shape", "view"
    )
    sin = finding(
        result, "sin", AMAX.replace("amax", "prod"), "aten.sin.default:values", "pointwise"
    )
    cos = finding(
        result, "cos", AMAX.replace("amax", "mean"), "aten.cos.default:values", "pointwise"
    )
    _triage(tmp_path, [mul, add, transpose, transpose_short, permute, sin, cos])
    assert sorted(f.status for f in (mul, add)) == ["merged", "new"]
    assert sorted(f.status for f in (transpose, transpose_short)) == ["merged", "new"]
    assert "the same first wrong node" in (add.merge_reason or mul.merge_reason)
    assert (permute.status, sin.status, cos.status) == ("new", "new", "new")
    assert len(_cases(tmp_path)) == 5


def test_runtime_symptoms_that_start_at_the_same_wrong_instruction_are_one_bug(tmp_path):
    """Rule (e) below the edge program: a crash in one program and wrong values in
    another, both first wrong at a topk instruction of the runtime's own run (facts
    runtime_origin), are one bug; a runtime origin never joins an edge origin of the
    same op (one is a lowering fault, the other a fault below the edge program)."""

    def finding(kind, name, source, **facts):
        d = _div(kind, "call[0]", f"{kind}@call#{name}", inputs=[], at=name, ops=[name])
        d["data"]["facts"].update(facts)
        return _finding(f"{kind}@call#{name}", source, d)

    topk = {"runtime_origin": "aten.topk.default:dtype", "runtime_origin_class": "aten.topk"}
    crash = finding("exir.crash", "topk", AMAX, **topk)
    wrong = finding("exir.runtime-result", "mul", NONZERO, **topk)
    edge = finding(
        "exir.runtime-result",
        "add",
        NONZERO_SUM,
        origin="aten.topk.default:dtype",
        origin_class="aten.topk",
    )
    _triage(tmp_path, [crash, wrong, edge])
    assert sorted(f.status for f in (crash, wrong)) == ["merged", "new"]
    merged = crash if crash.status == "merged" else wrong
    assert merged.merge_reason == "the same first wrong instruction (aten.topk.default dtype)"
    assert edge.status == "new" and len(_cases(tmp_path)) == 2


def test_a_crash_head_is_the_same_whether_a_size_is_symbolic_or_concrete():
    from fuzz.buckets import discriminator

    def crash(error):
        return {"kind": "exir.crash", "stage": "to_edge", "details": error, "data": {}}

    head = "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: "
    symbolic = discriminator(crash(head + "[s6, s71] but got: [s6, 1]."))
    concrete = discriminator(crash(head + "[1, s71] but got: [1, 1]."))
    unbacked = discriminator(crash(head + "[u0, 4] but got: [u0, 1]."))
    assert symbolic == concrete == unbacked
    other = discriminator(crash("RuntimeError: Expected size for first two dimensions of x"))
    assert other != symbolic


def _native_death(kernel_symbol: str) -> str:
    """A dying child's stderr with the native stack (fuzz.native_stack) and faulthandler's
    dump: the kernel `kernel_symbol` (mangled) is the innermost ExecuTorch frame."""
    from fuzz.native_stack import BEGIN, END

    return (
        f"{BEGIN}\n/lib/libc.so.6(abort+0xd3)[0x1]\n"
        f"/x/libexecutorch_kernels_optimized.so({kernel_symbol}+0x160)[0x2]\n"
        f"/x/libexecutorch.so(_ZN10executorch7runtime6Method7executeEv+0x1ed)[0x3]\n{END}\n"
        "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call "
        'first):\n  File "/x/site-packages/executorch/runtime/__init__.py", line 147 in '
        "execute\n\n"
    )


INDEX_OUT = "_ZN5torch8executor6native16index_Tensor_outERNS_7runtimeE"
AMAX_OUT = "_ZN5torch8executor6native8amax_outERN10executorch7runtimeE"


def _death(source: str, name: str) -> Finding:
    d = _div("exir.crash", "process", f"exir.crash@process#SIGSEGV{name}", "died (SIGSEGV)")
    return Finding(d["bucket"], source, [d], False, "worker-0.0", crash=True)


def test_a_death_in_a_program_whose_plan_diverges_is_that_plan_divergence(tmp_path):
    """Item 4 of issue #47: the liveness fault's SIGSEGV (a worker that died, so its lane
    reported nothing) and its wrong result in another program are one bug: the lane
    announced the program's lifetime-short overlap before the runtime ran, and the
    confirmation re-run's native stack names the kernel it died in."""
    ops = ["aten.index.Tensor", "aten.index.Tensor:float32", "aten.neg.default"]
    wrong = _liveness_finding(
        "exir.runtime-result", "call[0]", ["aten.cat.default"], AMAX, "alloc", "aten_mul"
    )
    death = _death(NONZERO, "a")
    announced_overlap = _liveness_finding(
        "exir.overlap", "memory-planning[greedy]", ops, NONZERO, "alloc_1", "aten_index"
    ).divergences[1]
    announced_overlap.pop("bucket")
    announced = {"ops": ops, "sizes": [], "during": "calls"}
    announced["plan_divergences"] = [announced_overlap]
    sup = Supervisor(_settings(tmp_path))
    for f in (wrong, death):
        sup.findings[f.bucket] = f

    def rerun(source, lane, device):
        return -11, False, _native_death(INDEX_OUT), dict(announced), ""

    into = DirectoryCorpus(tmp_path / "cases")
    Triage(sup, CorpusIndex.of([into]), into, rerun, stock=_stock_shows_it).run(renderer(sup))
    facts = death.divergences[0]["data"]["facts"]
    assert facts["died_in"] == "index_Tensor_out"
    assert facts["runtime_origin"] == "aten.index.Tensor:died"
    assert "plan_divergences" not in facts  # they joined the finding's divergences
    assert [d["kind"] for d in death.divergences] == ["exir.crash", "exir.overlap"]
    assert sorted(f.status for f in (wrong, death)) == ["merged", "new"]
    merged = wrong if wrong.status == "merged" else death
    assert merged.merge_reason.startswith("a plan divergence explains the runtime symptom")
    assert len(_cases(tmp_path)) == 1


def test_a_death_without_a_plan_divergence_stays_its_own_bug(tmp_path):
    """The same death, announced with no plan divergence, does not join the wrong result."""
    wrong = _liveness_finding(
        "exir.runtime-result", "call[0]", ["aten.cat.default"], AMAX, "alloc", "aten_mul"
    )
    death = _death(NONZERO, "a")
    sup = Supervisor(_settings(tmp_path))
    for f in (wrong, death):
        sup.findings[f.bucket] = f

    def rerun(source, lane, device):
        announced = {"ops": ["aten.index.Tensor"], "sizes": [], "during": "calls"}
        return -11, False, _native_death(INDEX_OUT), announced, ""

    into = DirectoryCorpus(tmp_path / "cases")
    Triage(sup, CorpusIndex.of([into]), into, rerun, stock=_stock_shows_it).run(renderer(sup))
    assert (wrong.status, death.status) == ("new", "new")


def test_a_kernel_that_kills_the_process_and_one_that_raises_are_one_stop(tmp_path):
    """Rule (e) with a death's origin: amax dying in one program (the native stack) and
    raising in another (the runtime origin of the call, nature raised) are one bug; a
    death in another kernel is another."""
    raised = _div(
        "exir.crash",
        "call[0]",
        "exir.crash@call#amax",
        inputs=[],
        ops=["aten.amax.default"],
        runtime_origin="aten.amax.default:raised",
    )
    raising = _finding("exir.crash@call#amax", NONZERO_SUM, raised)
    dying, other = _death(AMAX, "a"), _death(NONZERO, "b")
    sup = Supervisor(_settings(tmp_path))
    for f in (raising, dying, other):
        sup.findings[f.bucket] = f

    def rerun(source, lane, device):
        kernel = AMAX_OUT if source == AMAX else INDEX_OUT
        announced = {"ops": ["aten.amax.default", "aten.index.Tensor"], "during": "calls"}
        return -11, False, _native_death(kernel), announced, ""

    into = DirectoryCorpus(tmp_path / "cases")
    Triage(sup, CorpusIndex.of([into]), into, rerun, stock=_stock_shows_it).run(renderer(sup))
    assert sorted(f.status for f in (raising, dying)) == ["merged", "new"]
    merged = raising if raising.status == "merged" else dying
    assert "the same first wrong instruction (aten.amax.default raised)" in merged.merge_reason
    assert other.status == "new"


def test_runtime_symptoms_of_size_lists_emitted_wrong_are_one_bug(tmp_path):
    """An emitter fault shows as a wrong shape in one program and a refused expand in
    another, at different ops, each program also showing exir.emission (its size list
    as the graph has it and as emitted): rule (g) puts each symptom under its program's
    emission divergence, and emission divergences are one figure under rule (d)."""

    def finding(kind, name, source, at):
        emission = _div("exir.emission", "to_executorch", f"exir.emission@{name}", inputs=[])
        emission["data"].update(node=at, op=at)
        d = _div(kind, "call[0]", f"{kind}@call#{name}", inputs=[], at=at, ops=[at])
        return _finding(d["bucket"], source, d, emission)

    shape = finding("exir.runtime-result", "view", AMAX, "aten.view_copy.default")
    refused = finding("exir.crash", "expand", NONZERO, "aten.expand_copy.default")
    _triage(tmp_path, [shape, refused])
    assert sorted(f.status for f in (shape, refused)) == ["merged", "new"]
    merged = shape if shape.status == "merged" else refused
    assert merged.merge_reason == (
        "the emitted program explains the runtime symptom: the same wrong figure (size list)"
    )


def test_overlaps_that_share_fewer_bytes_than_an_element_are_one_figure(tmp_path):
    """A planner whose offset arithmetic is a byte off places tensors of any kind one
    byte into a live one: ExecuTorch's Verifier names the two storages, and overlaps that
    share the same sub-element count of bytes are one bug. Overlaps of whole elements keep
    the node-kind figure (a reuse decision), so they stay apart."""

    def finding(name, source, lhs, rhs):
        error = (
            "InternalError: Unexpected storage overlap: lhs life time: [2, 7], rhs lifetime: "
            f"[4, 7] lhs: mem_id 1 storage: {lhs[0]}, {lhs[1]} rhs: mem_id 1 storage: "
            f"{rhs[0]}, {rhs[1]}"
        )
        d = _div("exir.overlap", "memory-planning[greedy]", f"exir.overlap@{name}", error)
        d["data"].update(error=error, algo="greedy", verifier="verify_storage_reuse")
        return _finding(d["bucket"], source, d)

    one = finding("a", AMAX, (76, 16), (61, 16))  # bytes 76..77: one byte
    other = finding("b", NONZERO, (1439, 288), (1152, 288))  # byte 1439: one byte
    whole = finding("c", NONZERO_SUM, (64, 16), (48, 32))  # 16 bytes: a whole tensor
    _triage(tmp_path, [one, other, whole])
    assert sorted(f.status for f in (one, other)) == ["merged", "new"]
    assert whole.status == "new"
    merged = one if one.status == "merged" else other
    assert merged.merge_reason == "the same wrong figure (sharing 1 byte)"


def test_out_buffers_passed_wrong_explain_the_kernels_symptoms(tmp_path):
    """A lowering that passes a multi-output kernel its out= buffers swapped shows as a
    dtype check failing in topk in one program and wrong values after sort in another;
    each program's alias-structure check says an out variant does not write its planned
    buffer (S3 out-variant), and that explains both: one bug. An S3 in-place divergence
    (a planner choice the runtime may leave) explains nothing."""

    def finding(kind, name, source, rule):
        s3 = _div("exir.aliasing", "alias-structure", f"exir.aliasing@{name}", inputs=[])
        s3["details"] = f"{rule}: <top>/aten_{name} does not share alloc_3's storage"
        d = _div(kind, "call[0]", f"{kind}@call#{name}", inputs=[], at=name, ops=[name])
        return _finding(d["bucket"], source, d, s3)

    topk = finding("exir.crash", "topk", AMAX, "S3 out-variant")
    sort = finding("exir.runtime-result", "sort", NONZERO, "S3 out-variant")
    inplace = finding("exir.runtime-result", "add_", NONZERO_SUM, "S3 in-place")
    _triage(tmp_path, [topk, sort, inplace])
    assert sorted(f.status for f in (topk, sort)) == ["merged", "new"]
    assert inplace.status == "new"
