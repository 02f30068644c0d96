"""The campaign's parts on their own: the typed protocol, buckets, the supervisor's crash
and version handling, blind spots and the report's coverage block. (The whole campaign,
end to end, is tests/stacks/campaign/test_nightly.py.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fuzz import ops
from fuzz.buckets import ProgramFacts, bucket_of, flips_of
from fuzz.campaign.example import leads
from fuzz.campaign.findings import Finding
from fuzz.campaign.protocol import (
    MESSAGES,
    Bye,
    Candidate,
    Example,
    HarnessError,
    Hello,
    LaneStart,
    ProtocolError,
    Start,
    WorkerConfig,
    decode,
    encode,
)
from fuzz.campaign.report import blind_spots, build_report
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.supervisor import CampaignSettings, Supervisor


def _settings(tmp_path: Path, **kw) -> CampaignSettings:
    base = dict(
        budget=60.0,
        lanes=("thunder",),
        devices=("cpu",),
        fixes="off",
        workers=1,
        seed=1,
        out=tmp_path,
        quiet=True,
    )
    return CampaignSettings(**(base | kw))


SAMPLES = [
    Hello(1, "node-a", {"x": "applied"}, {"torch": "2.13.0"}, {"exir/cuda": "no CUDA device"}, "h"),
    Start(3, "explore", "abc", "def program(x):\n    return (x,)\n"),
    LaneStart("thunder", "cpu"),
    Example(
        3,
        "explore",
        0.1,
        1.5,
        False,
        {"thunder/cpu": {"kinds": ["thunder.crash"]}},
        {"families": {"view": 1}, "inputs": {"number": 1}, "decisions": {"if-eq": 2}},
    ),
    Candidate(
        "thunder.crash@call#X", True, "shrink", "src", [{"kind": "thunder.crash"}], ["neg"], "yes"
    ),
    HarnessError("boom"),
    Bye("budget", 12),
]


def test_every_message_survives_the_pipe_unchanged():
    assert {type(m) for m in SAMPLES} == set(MESSAGES.values())
    for message in SAMPLES:
        line = encode(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert decode(line) == message


def test_a_bad_line_is_a_protocol_error_not_a_crash():
    for bad in (b"not json", b'{"t": "nope"}', b'{"t": "bye", "why": 1}', b"[1, 2]"):
        with pytest.raises(ProtocolError):
            decode(bad)


def test_worker_config_round_trips_through_json():
    config = WorkerConfig(
        0,
        1,
        42,
        "on",
        ("exir",),
        ("cpu",),
        10.0,
        20.0,
        5.0,
        corpus=("corpus",),
        suppressed=("a@b#c",),
    )
    assert WorkerConfig.from_json(config.to_json()) == config
    with pytest.raises(ProtocolError, match="unknown"):
        WorkerConfig.from_json(config.to_json() | {"surprise": 1})


def _d(kind, stage="call[1]", details="", **data):
    return {"kind": kind, "stage": stage, "details": details, "device": "cpu", "data": data}


def test_flips_are_the_decisions_whose_outcome_changed_before_that_call():
    outcomes = [(True, 1, None), (True, 1, None), (False, 1, None), (True, 2, None)]
    assert flips_of(outcomes, ["if-eq", "broadcast", "cond-data"]) == {
        2: ("if-eq",),
        3: ("broadcast",),
    }


def test_buckets_tell_root_causes_apart_and_keep_one_cause_together():
    facts = ProgramFacts(("neg",), ("elementwise",), {1: ("if-lt",), 2: ("broadcast",)})
    wrong_lt = bucket_of(_d("thunder.wrong-result", "call[1]", control="agrees with eager"), facts)
    # The same cause at another call index with the same flip: one bucket.
    same = dict(facts.flips) | {4: ("if-lt",)}
    facts4 = dataclasses.replace(facts, flips=same)
    assert (
        bucket_of(_d("thunder.wrong-result", "call[4]", control="agrees with eager"), facts4)
        == wrong_lt
    )
    # Another decision flipped, or the default cache diverges too: other buckets.
    assert (
        bucket_of(_d("thunder.wrong-result", "call[2]", control="agrees with eager"), facts)
        != wrong_lt
    )
    assert (
        bucket_of(_d("thunder.wrong-result", "call[1]", control="diverges too"), facts) != wrong_lt
    )
    # Crashes: by exception type and message head, numbers and names normalized.
    a = bucket_of(_d("thunder.crash", error="IndexError: index 3 out of range for 'x1'"))
    b = bucket_of(_d("thunder.crash", error="IndexError: index 7 out of range for 'x0'"))
    c = bucket_of(_d("thunder.crash", error="TypeError: tuple indices must be integers"))
    assert a == b != c
    # An ExecuTorch runtime failure: every kernel's failed check is "error 0x12", so the
    # runtime's log (fuzz/backends/exir/runtime.py) tells them apart; its numbers do not.
    head = "RuntimeError: method->execute() failed with error 0x12 (runtime log: "
    embedding = (
        "[op_embedding.cpp:52] Check failed (indices_ptr[i] >= 0): indices_ptr[{}] -{} < 0; "
        "[method.cpp:1483] KernelCall failed at instruction 0:{} in operator "
        "aten::embedding.out: 0x12)"
    )
    select = (
        "[index_util.cpp:71] Check failed (nonempty_size(in, dim) > 0): ; [method.cpp:1483] "
        "KernelCall failed at instruction 0:1 in operator aten::index_select.out: 0x12)"
    )
    e1 = bucket_of(_d("exir.crash", error=head + embedding.format(0, 3, 2)))
    e2 = bucket_of(_d("exir.crash", error=head + embedding.format(4, 1, 5)))
    e3 = bucket_of(_d("exir.crash", error=head + select))
    assert e1 == e2 != e3 and "aten::embedding.out" in e1
    assert bucket_of(_d("exir.crash", error=head[: -len(" (runtime log: ")])) not in (e1, e3)
    # EXIR: the planned node's operator; the probe kind stays in the stage.
    s1 = bucket_of(_d("exir.spec-meta", "spec-prop", node="aten_nonzero_default_3"))
    s2 = bucket_of(_d("exir.spec-meta", "spec-prop", node="aten_nonzero_default_7"))
    s3 = bucket_of(_d("exir.spec-meta", "spec-prop", node="aten_masked_select_default"))
    assert s1 == s2 != s3
    upper = bucket_of(_d("exir.unchecked-contract", "contract[upper]"))
    assert upper != bucket_of(_d("exir.unchecked-contract", "contract[guard]"))
    diff = "--- cached\n+++ fresh\n-%3 = prims.broadcast_in_dim(%1)\n+%3 = prims.add(%1)"
    unsound = bucket_of(_d("thunder.unsound-hit", diff=diff), facts)
    assert "prims.broadcast_in_dim" in unsound and "if-lt" in unsound


def test_a_dead_worker_is_recorded_as_a_crash_of_the_program_it_announced(tmp_path):
    sup = Supervisor(_settings(tmp_path))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    source = "def program(x):\n    return (x.sin(),)\n"
    sup.on_message(slot, Start(1, "explore", "sha1", source))
    sup.on_message(slot, LaneStart("thunder", "cpu"))
    assert sup.ended(slot, -6) is True  # restart the slot
    (finding,) = sup.findings.values()
    assert finding.crash and finding.source == source
    assert finding.bucket == "thunder.crash@process#SIGABRT"
    assert "SIGABRT" in finding.divergences[0]["details"]
    assert sup.crashes == 1 and "sha1" in sup.config_for(slot).skip_sources
    assert slot.incarnation == 1


def test_a_worker_with_another_harness_is_refused(tmp_path):
    sup = Supervisor(_settings(tmp_path))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-b", {}, {}, {}, "hypothesis 0.0, harness other"))
    assert slot.finished and sup.errors and "another harness" in sup.errors[0]
    assert sup.ended(slot, 0) is False


def test_the_report_has_a_coverage_block_per_lane_over_programs_that_ran(tmp_path):
    sup = Supervisor(_settings(tmp_path, lanes=("thunder", "exir")))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    ran = {"kinds": [], "counters": {"hits": 2, "misses": 1, "calls-checked": 3}, "skipped": None}
    skipped = {"skipped": "unsupported by thunder: nonzero", "counters": {"unsupported:nonzero": 1}}
    coverage = {
        "families": {"branch": 1, "view": 1},
        "inputs": {"number": 1, "dtype:float32": 1, "size0": 0},
        "decisions": {"if-lt": 2},
        "dynamic": 1,
    }
    sup.on_message(
        slot, Example(1, "explore", 0.1, 1.0, lanes={"thunder/cpu": ran}, coverage=coverage)
    )
    sup.on_message(
        slot, Example(2, "explore", 0.1, 1.0, lanes={"thunder/cpu": skipped}, coverage=coverage)
    )
    doc = build_report(sup)
    block = doc["coverage"]["thunder/cpu"]
    never_drawn = block.pop("never_drawn")  # the catalogue's Thunder ops: none was drawn
    assert never_drawn == sorted(op.name for op in ops.for_lanes(["thunder"]))
    assert block == {
        "programs": 1,
        "ran": 1,
        "families": {"branch": 1, "view": 1},
        "ops": {},
        "inputs": {"dtype:float32": 1, "number": 1},
        "decisions": {"if-lt": 2},
        "unsupported": {"nonzero": 1},
        "dynamic": 1,
    }
    assert doc["nodes"] == {"node-a": {"thunder/cpu": 2}}


def test_a_program_eager_rejects_is_counted_and_reported_as_a_generator_rule_bug(tmp_path):
    """A generated program is valid by construction, so eager raising at one of its calls
    is a generator rule bug; where the lane rejects the call too, nothing diverges and the
    call checks nothing. The 2026-12-05 Thunder campaign met one only because Thunder
    returned a result at one call. Counted per lane report, shown in report.md."""
    from fuzz.case import case_from_source
    from fuzz.case_runner import run_case

    source = (
        "import torch\n\n\ndef program(x):\n    return (x.unflatten(0, (2, -1)),)\n\n\n"
        "def calls():\n    return [(torch.randn(4),), (torch.randn(3),), (torch.randn(5),)]\n"
    )
    (report,) = run_case(
        case_from_source(source, "odd"), lanes=("thunder",), devices=("cpu",), confirm=False
    ).reports
    assert report.divergences == []  # Thunder rejects the odd sizes too: silent, but counted
    assert (report.counters["eager-raised"], report.counters["eager-raised-calls"]) == (1, 2)

    sup = Supervisor(_settings(tmp_path, lanes=("thunder",)))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    ran = {"kinds": [], "counters": dict(report.counters), "skipped": None}
    sup.on_message(slot, Example(1, "explore", 0.1, 1.0, lanes={"thunder/cpu": ran}))
    doc = build_report(sup)
    assert doc["checked"]["thunder/cpu"]["eager_raised_programs"] == 1
    text = render_markdown(doc)
    assert "programs where eager raised 1." in text
    assert "**A generator rule bug:** eager raised at 2 call(s) of 1 generated program(s)" in text


def _lane(programs, ran, skipped=None, hits=0):
    return {
        "programs": programs,
        "ran": ran,
        "skipped": skipped or {},
        "counters": {"calls-checked": 2 * ran} | ({"hits": hits} if hits else {}),
    }


def test_blind_spots_fire_on_a_lane_that_checks_too_little_and_not_otherwise():
    healthy = {
        "lanes": {
            "thunder/cpu": _lane(40, 38, {"unsupported by thunder": 2}, hits=30),
            "exir/cpu": _lane(40, 35, {"export refused": 5}),
        }
    }
    assert blind_spots(healthy) == []
    skipping = {"lanes": {"exir/cpu": _lane(40, 20, {"unsupported by exir": 20})}}
    assert [b["what"] for b in blind_spots(skipping)] == ["skip rate"]
    no_hits = {"lanes": {"thunder/cpu": _lane(40, 40)}}
    assert [b["what"] for b in blind_spots(no_hits)] == ["no cache hit"]


def test_finding_item_keeps_the_public_three_parts():
    f = Finding("exir.crash@to_executorch#KeyError: N", "src", [], True, "w")
    assert f.item == ("exir.crash", "to_executorch", "KeyError: N") and f.kind == "exir.crash"


def test_the_campaign_database_keeps_failures_hypothesis_would_drop(tmp_path):
    from fuzz.campaign.database import KeepFailures, open_database

    db = open_database(str(tmp_path / "db"))
    assert isinstance(db, KeepFailures)
    db.save(b"key", b"failing")
    db.delete(b"key", b"failing")  # a later round found it no longer interesting
    db.move(b"key", b"key.secondary", b"failing")  # ... or demoted it
    assert list(db.fetch(b"key")) == [b"failing"]
    assert list(db.fetch(b"key.secondary")) == [b"failing"]
    assert open_database(None) is None


def test_a_shrink_that_starts_from_a_judged_program_is_announced():
    """The database replays a program this worker judged before (its verdict is cached):
    the shrink it starts is announced like any other, so the supervisor books its time
    to that bucket (a seed-5 nightly left 22 s of 59 s of shrinking unbooked)."""
    from fuzz.campaign.rounds import Diverged
    from fuzz.campaign.worker import Worker

    sent: list = []
    cfg = WorkerConfig(0, 0, 5, "on", ("exir",), ("cpu",), 60.0, 120.0, 30.0)
    worker = Worker(cfg, sent.append, node="test")
    bucket = "exir.bound-loss@plan-bounds#neg"
    divergence = {"bucket": bucket, "kind": "exir.bound-loss", "device": "cpu"}
    payload = {"source": "src", "divergences": [divergence], "ops": ["neg"]}
    with pytest.raises(Diverged):
        worker._diverged(payload, announce=False)  # a cached verdict, while exploring
    assert worker.phase == "shrink" and worker.primary == bucket
    assert [(m.bucket, m.final, m.phase) for m in sent] == [(bucket, False, "shrink")]
    with pytest.raises(Diverged):  # while shrinking, a cached verdict is not announced again
        worker._diverged(payload, announce=False)
    assert len(sent) == 1


def test_a_registered_bug_met_while_shrinking_is_not_a_new_lead():
    new = {"bucket": "exir.crash@call#E", "kind": "exir.crash"}
    known = {"bucket": "exir.unchecked-contract@contract[upper]#", "known_as": ["corpus/x.py"]}
    divergences = [known, new]
    # Exploring: known bugs never reach this list unannotated, every fresh bucket leads.
    assert leads([new], set(), None) == [new["bucket"]]
    # Shrinking the crash: the registered bug met on the way is not raised for.
    assert leads(divergences, set(), new["bucket"]) == [new["bucket"]]
    # Nor when it is the bucket being shrunk and only a pattern recognises it (the shrink
    # would drift onto a registered bug); a new bucket beside it still leads.
    assert leads(divergences, set(), known["bucket"]) == [new["bucket"]]
    # ... but a candidate that is a registered case's own program still counts (the
    # shrink rediscovered the case; triage classifies it known).
    case = known | {"registered_program": True}
    assert leads([case, new], set(), known["bucket"]) == [known["bucket"], new["bucket"]]
    # An unregistered second bucket is a lead while shrinking; a shrunk one is not.
    other = {"bucket": "exir.overlap@plan#x", "kind": "exir.overlap"}
    assert leads([new, other], {other["bucket"]}, new["bucket"]) == [new["bucket"]]
    assert leads([new, other], set(), new["bucket"]) == [new["bucket"], other["bucket"]]


def test_a_worker_settles_the_objects_alive_after_its_set_up(monkeypatch):
    """Once the stacks are imported, what is alive leaves the GC's generations (so full
    collections stop traversing it) and reference counting still frees it."""
    import gc
    import weakref

    import fuzz.campaign.worker as worker_module
    from fuzz.prepare import settle_long_lived_objects

    class Thing:
        pass

    alive = Thing()
    ref = weakref.ref(alive)
    try:
        assert settle_long_lived_objects() == gc.get_freeze_count() > 0
        assert not any(o is alive for o in gc.get_objects())  # frozen
        del alive
        assert ref() is None
    finally:
        gc.unfreeze()
    settled: list = []
    monkeypatch.setattr(worker_module, "settle_long_lived_objects", lambda: settled.append(1))
    cfg = WorkerConfig(0, 0, 5, "on", ("exir",), ("cpu",), 60.0, 120.0, 30.0)
    worker_module.Worker(cfg, [].append, node="test").setup()
    assert settled == [1]


def test_the_report_counts_an_upstream_bug_once_however_many_cases_register_it(tmp_path):
    """Four corpus cases register pytorch/executorch#11086: a night that meets three of
    them has seen one distinct bug there, not three."""
    from fuzz.campaign.report_md import render_markdown

    link = "https://github.com/pytorch/executorch/issues/11086"
    cases = []
    for name, upstream in (("a", link), ("b", link), ("c", None)):
        path = tmp_path / f"{name}.py"
        path.write_text(f"def program(x):\n    return (x,)\n\nUPSTREAM = {upstream!r}\n")
        cases.append(str(path))
    sup = Supervisor(_settings(tmp_path, lanes=("exir",)))
    slot = sup.slots[0]
    sup.started(slot)
    sup.on_message(slot, Hello(1, "node-a", {}, {}, {}, sup.harness))
    for n, known in enumerate((cases[:2], cases[1:]), start=1):
        ran = {"kinds": ["exir.crash"], "known_as": known, "counters": {}, "skipped": None}
        sup.on_message(slot, Example(n, "explore", 0.1, 1.0, lanes={"exir/cpu": ran}))
    doc = build_report(sup)
    assert doc["known_bugs"] == {cases[1]: 2, cases[0]: 1, cases[2]: 1}
    assert doc["registered_upstream"] == {link: cases[:2], cases[2]: [cases[2]]}
    text = render_markdown(doc)
    assert "**Distinct registered bugs seen:** 2 (in 3 corpus case(s))" in text
    assert f"{link}: `{cases[0]}`, `{cases[1]}`" in text
