"""The fault benchmark's scoring (benchmarks/fault_bench.py), on made-up reports: which
findings count as the fault's, with a baseline run and without one (`--baseline replay`,
where replaying the case without the plugin is the only judge)."""

from __future__ import annotations

import pytest

from benchmarks import fault_bench

FAULT = "logsumexp_squeeze_first"


def finding(bucket, status, path):
    return {"bucket": bucket, "status": status, "path": path, "item": ["exir.runtime-result"]}


REPORT = {
    "findings": [
        finding("exir.runtime-result reduction-multi", "new", "corpus/a.py"),
        finding("exir.crash at to_executorch", "new", "corpus/b.py"),
        finding("exir.pipeline-variance", "known", "corpus/c.py"),
    ],
    "known_bugs": {"corpus/executorch_prim_mod_symint.py": 3},
    "events": [
        "  12.5s new bucket exir.crash at to_executorch (w0)",
        "  40.0s new bucket exir.runtime-result reduction-multi (w1)",
    ],
}


@pytest.fixture
def replays(monkeypatch):
    """a.py passes without the plugin (the fault's); b.py diverges without it (not)."""
    seen = []

    def diverges(path, lane):
        seen.append(path)
        return {"corpus/a.py": False, "corpus/b.py": True}.get(path)

    monkeypatch.setattr(fault_bench, "diverges_without_plugins", diverges)
    return seen


def test_without_a_baseline_only_the_findings_that_pass_replayed_are_the_faults(replays):
    row = fault_bench.score(FAULT, REPORT, {"findings": [], "known_bugs": {}, "replay_only": True})
    assert sorted(replays) == ["corpus/a.py", "corpus/b.py"]  # the known one is not replayed
    assert row["found"] is True
    assert [f["path"] for f in row["new_findings"]] == ["corpus/a.py"]
    assert row["first_detection_s"] == 40.0  # a.py's bucket, not b.py's earlier one
    assert row["known_by_mistake"] == 0
    assert row["registered_only_here"] == {}


def test_without_a_baseline_a_bucket_merged_into_the_faults_case_is_the_faults(replays):
    """A bucket that saw the fault first and was merged into the case filed (a smaller
    program, found later) dates the detection; one merged into a case that is not the
    fault's does not."""
    merged = finding("exir.edge-result math", "merged", None) | {"merged_into": "corpus/a.py"}
    other = finding("exir.edge-result sort", "merged", None) | {"merged_into": "corpus/b.py"}
    report = REPORT | {
        "findings": [*REPORT["findings"], merged, other],
        "events": [
            "   5.0s new bucket exir.edge-result sort (w0)",
            "  11.5s new bucket exir.edge-result math (w1)",
            *REPORT["events"],
        ],
    }
    row = fault_bench.score(FAULT, report, {"findings": [], "known_bugs": {}, "replay_only": True})
    assert row["found"] is True and row["new_buckets"] == 1
    assert row["first_detection_s"] == 11.5


def test_without_a_baseline_a_night_whose_cases_all_diverge_unplugged_found_nothing(replays):
    report = REPORT | {"findings": [finding("exir.crash at to_executorch", "new", "corpus/b.py")]}
    row = fault_bench.score(FAULT, report, {"findings": [], "known_bugs": {}, "replay_only": True})
    assert row["found"] is False
    assert row["first_detection_s"] is None


def test_with_a_baseline_every_new_case_is_still_replayed(replays):
    baseline = {"findings": [finding("exir.crash at to_executorch", "new", "x.py")]}
    row = fault_bench.score(FAULT, REPORT, baseline)
    assert sorted(replays) == ["corpus/a.py", "corpus/b.py"]
    assert [f["path"] for f in row["new_findings"]] == ["corpus/a.py"]
    assert row["registered_only_here"] == {"executorch_prim_mod_symint": 3}


def test_with_a_baseline_a_bucket_it_lacks_is_not_the_faults_when_stock_shows_it(replays):
    """A stock hang the baseline night did not meet (its bucket is not the baseline's)
    was scored as the fault's; replayed without the plugin it diverges: not the fault's.
    A case replay cannot judge (no outcome) falls back to the bucket."""
    report = REPORT | {
        "findings": [
            finding("exir.crash at process", "new", "corpus/b.py"),
            finding("exir.crash at to_edge", "new", "corpus/unknown.py"),
        ]
    }
    row = fault_bench.score(FAULT, report, {"findings": [], "known_bugs": {}})
    assert [f["path"] for f in row["new_findings"]] == ["corpus/unknown.py"]


def test_a_replayed_case_that_shows_only_registered_bugs_is_the_faults():
    """Replayed without the plugin, a faulty night's case may still show a registered bug
    its program also has (a seed-1 logsumexp night: the fault's wrong shape, plus the
    registered unchecked contract). Only a divergence no registered bug explains makes
    the finding not the fault's; a registered case's own program shows none."""
    case = fault_bench.ROOT / "corpus" / "executorch_sym_pow_unsupported.py"
    assert fault_bench.diverges_without_plugins(str(case), "exir") is False
    assert fault_bench.diverges_without_plugins(str(case.with_name("missing.py")), "exir") is None
