"""`python -m fuzz nightly`, end to end, on the fast test lane of tests/crash_ops.py
(it stands in for Thunder in the worker processes; `--fixes off` so no worker imports
Thunder): a backend that kills its process does not end the campaign and is recorded as a
crash; a campaign run twice with the same seed finds the same signatures, and the second
run, given the first one's cases as its corpus, classifies them as known and writes
nothing; the report files are complete; usage errors exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from fuzz.case import case_metadata
from fuzz.tensors import materialize
from tests.helpers import python_path
from tests.helpers import run_nightly as nightly

ROOT = Path(__file__).resolve().parents[3]


def signatures(doc) -> set[str]:
    return {s["digest"] for f in doc["findings"] for s in f["signatures"]}


def test_a_crashing_backend_is_recorded_and_the_campaign_goes_on(tmp_path):
    out = tmp_path / "out"
    proc, doc = nightly(
        out,
        "--max-examples",
        "30",
        "--hypothesis-seed",
        "7",
        "--budget",
        "120",
        "--database",
        "none",
        lane_mode="crash",
    )
    assert doc is not None, proc.stderr[-3000:]
    assert doc["crashes"] >= 1, doc["events"]
    assert doc["worker_restarts"] >= 1
    crash = [f for f in doc["findings"] if f["item"][0] == "thunder.crash"]
    assert crash and crash[0]["status"] == "new", doc["findings"]
    assert "SIGABRT" in crash[0]["divergences"][0]["details"]
    assert crash[0]["confirmation"].startswith("reproduced")
    # The campaign went on after the crash, in a new worker, to its full quota.
    assert doc["programs"]["explored"] >= 30, doc["programs"]
    assert not doc["errors"], doc["errors"]
    assert proc.returncode == 1
    # The crash was filed as a case file: the program that crashed, with its docstring.
    path = Path(crash[0]["path"])
    text = path.read_text()
    assert text.startswith('"""thunder.crash at process on cpu')
    assert "FOUND = ('thunder.crash@process',)" in text
    from fuzz.case import load_case

    case = load_case(path)
    tensors = [t for args in materialize(case, 0) for t in args if isinstance(t, torch.Tensor)]
    assert any(7 in t.shape for t in tensors)  # the flag input


@pytest.mark.slow
def test_a_hanging_backend_is_killed_and_recorded(tmp_path):
    out = tmp_path / "out"
    proc, doc = nightly(
        out,
        "--max-examples",
        "20",  # 8 drew no dim of 5 under an experimental generator; 20 leave a margin
        "--hypothesis-seed",
        "7",
        "--budget",
        "120",
        "--database",
        "none",
        "--example-timeout",
        "3",
        lane_mode="hang",
        crash_dim=5,
    )
    assert doc is not None, proc.stderr[-3000:]
    assert doc["hangs"] >= 1 and doc["worker_restarts"] >= 1, doc["events"]
    hang = [f for f in doc["findings"] if f["item"] == ["thunder.crash", "process", "hang"]]
    assert hang and hang[0]["status"] == "new"
    assert hang[0]["confirmation"].startswith("reproduced")
    assert doc["programs"]["explored"] >= 20


def test_same_seed_same_signatures_known_findings_and_never_overwriting(tmp_path):
    first, second, third = tmp_path / "first", tmp_path / "second", tmp_path / "third"
    empty = str(tmp_path / "empty-corpus")
    args = (
        "--max-examples",
        "60",
        "--hypothesis-seed",
        "11",
        "--budget",
        "150",
        "--database",
        "none",
    )
    proc1, doc1 = nightly(first, *args, "--corpus", empty, lane_mode="diverge")
    assert doc1 is not None, proc1.stderr[-3000:]
    assert proc1.returncode == 1, proc1.stderr[-3000:]
    new = [f for f in doc1["findings"] if f["status"] == "new"]
    assert new and all(f["shrunk"] == "yes, 1-minimal" for f in new)
    # Shrunk and reduced to one op (the test lane flags programs that call torch.sin).
    written = Path(new[0]["path"])
    text = written.read_text()
    program = text[text.index("def program(") : text.index("def calls(")]
    # One op that calls torch.sin: `sin` itself, or (as seed 11 draws since workers run
    # short rounds) a branch op on a number input whose body calls it, which no removal
    # can make smaller.
    assert "torch.sin(" in program, text
    assert len(case_metadata(text)["META"]["ops"]) == 1, text

    # Same seed, into a folder that already has a file of that name: same signatures, a
    # new file next to it, the old one untouched.
    into = tmp_path / "into"
    into.mkdir()
    (into / written.name).write_text("# someone else's file\n")
    proc2, doc2 = nightly(
        second, *args, "--corpus", empty, "--into", str(into), lane_mode="diverge"
    )
    assert doc2 is not None, proc2.stderr[-3000:]
    assert signatures(doc2) == signatures(doc1) != set()
    assert (into / written.name).read_text() == "# someone else's file\n"
    assert Path(doc2["new_cases"][0]).name == written.stem + "_2.py"
    assert Path(doc2["new_cases"][0]).read_text() == text.replace(
        str(first), str(second)
    )  # the same finding, word for word

    # Same seed, with the first run's cases as the corpus: everything is known.
    proc3, doc3 = nightly(third, *args, "--corpus", str(first / "cases"), lane_mode="diverge")
    assert doc3 is not None, proc3.stderr[-3000:]
    assert signatures(doc3) == signatures(doc1)
    assert {f["status"] for f in doc3["findings"]} == {"known"}
    assert proc3.returncode == 0, proc3.stderr[-3000:]
    assert not (third / "cases").exists() or not list((third / "cases").iterdir())

    # Reports: JSON figures and a readable Markdown summary.
    lane = doc1["stats"]["lanes"]["thunder/cpu"]
    assert lane["programs"] == doc1["programs"]["explored"] == 60
    assert lane["kinds"]["thunder.wrong-result"] >= 1
    assert doc1["stats"]["family_programs"] and doc1["stats"]["time"]["generation"] > 0
    assert doc1["seed"] == 11 and doc1["fixes"]["switch"] == "off"
    md = (first / "report.md").read_text()
    for heading in (
        "# Nightly fuzz report",
        "## Lanes",
        "## Divergences",
        "## Coverage",
        "## Where the time went",
    ):
        assert heading in md
    assert "thunder/cpu" in md and "thunder.wrong-result" in md and "--hypothesis-seed 11" in md
    never = doc1["coverage"]["thunder/cpu"]["never_drawn"]
    assert never and "sin" not in never  # 60 programs draw some ops, not all of them
    assert f"| ops never drawn | {len(never)}: " in md


def test_nightly_usage_errors_exit_2(tmp_path):
    for bad in (["--lanes", "nope"], ["--fixes", "no-such-fix"]):
        proc = subprocess.run(
            [sys.executable, "-m", "fuzz", "nightly", "--out", str(tmp_path), *bad],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2, (bad, proc.stderr)


def test_a_plugin_that_cannot_be_imported_is_a_usage_error(tmp_path):
    """A missing plugin is refused before any work (no worker, no output folder); one that
    exists but raises on import fails every worker's setup: exit 2 with the same words."""
    (tmp_path / "raising_plugin.py").write_text("raise RuntimeError('plugin boom')\n")
    env = dict(os.environ) | {"PYTHONPATH": os.pathsep.join([python_path(), str(tmp_path)])}
    env.pop("FUZZ_FIXES", None)

    def run(plugin: str, out: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "fuzz", "nightly", "--plugin", plugin, "--out", str(out)]
            + ["--lanes", "thunder", "--devices", "cpu", "--workers", "1", "--fixes", "off"]
            + ["--database", "none", "--budget", "60", "--max-examples", "2"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    proc = run("no.such.module", tmp_path / "missing")
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert (
        "error: --plugin no.such.module: cannot import: "
        "ModuleNotFoundError: No module named 'no'" in proc.stderr
    ), proc.stderr
    assert not (tmp_path / "missing").exists()

    proc = run("raising_plugin", tmp_path / "raising")
    assert proc.returncode == 2, proc.stderr[-3000:]
    words = "--plugin raising_plugin: cannot import: RuntimeError: plugin boom"
    assert words in proc.stderr + proc.stdout, proc.stderr[-3000:]
    doc = json.loads((tmp_path / "raising" / "report.json").read_text())
    assert doc["exit"] == 2 and doc["programs"]["explored"] == 0, doc["programs"]
    assert any(words in e for e in doc["errors"]), doc["errors"]
