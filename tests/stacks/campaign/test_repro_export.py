"""`python -m fuzz repro`: every corpus case as the shortest script that shows its bug, in
the owner's idiom, and an ISSUE.md in the owner's tracker template.

The whole corpus is exported once per session (`corpus_export`, shared by the xdist
workers through a lock), then judged: every script agrees with the harness's replay on
the stock stack (fixes and speedups off), the sizes meet the figures (median at most 25
lines of code, none above 60), the scripts import only the stacks and the standard
library, no ISSUE.md holds a word of the harness's, and a bug torch alone shows is routed
to pytorch/pytorch with a torch-only script.
"""

from __future__ import annotations

import ast
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from fuzz.__main__ import main as cli
from fuzz.repro_export import THUNDER_LANES, export_case
from fuzz.repro_export.issue import harness_words
from fuzz.repro_export.run import run_script

ROOT = Path(__file__).resolve().parents[3]
CASES = sorted((ROOT / "corpus").glob("*.py"))
STACKS = {"torch", "executorch", "thunder"}
MEDIAN_LINES, MOST_LINES = 25, 60

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def corpus_export(tmp_path_factory, worker_id):
    """`python -m fuzz repro corpus/ --out DIR --jobs 2`, once for every worker."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id != "master" else base
    out = root / "repro-corpus"
    with FileLock(str(root / "repro-corpus.lock")):
        if not (out / "README.md").is_file():
            done = subprocess.run(
                [sys.executable, "-m", "fuzz", "repro", "corpus", "--out", str(out)]
                + ["--jobs", "2"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=3000,
            )
            assert done.returncode == 0, done.stderr[-3000:]
    return out


def _record(out: Path, name: str) -> dict:
    return json.loads((out / name / "repro.json").read_text())


def _imports(source: str) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            tops.add((node.module or "").split(".")[0])
    return tops


def _replay_reproduces(case: Path, lane: str, kinds: list[str]) -> bool:
    """Whether `python -m fuzz replay CASE --fixes off --speedups off` (the stock stacks)
    shows one of `kinds` (any divergence, where the case names none) on lane/cpu."""
    done = subprocess.run(
        [sys.executable, "-m", "fuzz", "replay", str(case), "--fixes", "off", "--isolate"]
        + ["--speedups", "off", "--lanes", lane, "--devices", "cpu", "--json", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    results = json.loads(done.stdout)["results"]
    ran = [r for r in results if r["lane"] == lane and r["device"] == "cpu"]
    assert ran and all(r["status"] != "error" for r in ran), ran
    return any(not kinds or d["kind"] in kinds for r in ran for d in r["divergences"])


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_the_script_agrees_with_the_stock_replay(case, corpus_export):
    record = _record(corpus_export, case.stem)
    if record["outcome"] == "unavailable":
        pytest.skip("the script needs a device this machine lacks (it exits 2 here)")
    assert record["outcome"] in ("reproduces", "ok"), record
    replayed = _replay_reproduces(case, record["lane"], record["kinds"])
    assert (record["outcome"] == "reproduces") == replayed, (
        f"the script {record['outcome']}, replay --fixes off --speedups off "
        f"{'reproduces' if replayed else 'does not'}:\n"
        + (corpus_export / case.stem / "ISSUE.md").read_text()[-3000:]
    )


def test_every_case_is_exported_as_a_script_an_issue_and_a_record(corpus_export):
    for case in CASES:
        folder = corpus_export / case.stem
        for name in ("repro.py", "ISSUE.md", "repro.json"):
            assert (folder / name).is_file(), (case.stem, name)
        compile((folder / "repro.py").read_text(), str(folder / "repro.py"), "exec")


def test_the_scripts_are_short(corpus_export):
    sizes = {c.stem: _record(corpus_export, c.stem)["lines"] for c in CASES}
    assert statistics.median(sizes.values()) <= MEDIAN_LINES, sizes
    assert max(sizes.values()) <= MOST_LINES, {k: v for k, v in sizes.items() if v > MOST_LINES}


def test_the_scripts_import_only_the_stack_they_run_and_the_standard_library(corpus_export):
    for case in CASES:
        record = _record(corpus_export, case.stem)
        tops = _imports((corpus_export / case.stem / "repro.py").read_text())
        foreign = {t for t in tops if t not in STACKS and t not in sys.stdlib_module_names}
        assert not foreign, (case.stem, foreign)
        assert not tops & {"fuzz", "fixes"}, case.stem
        other = "executorch" if record["lane"] in THUNDER_LANES else "thunder"
        assert other not in tops, case.stem


def test_no_issue_holds_a_word_of_the_harness(corpus_export):
    found = {}
    for case in CASES:
        text = (corpus_export / case.stem / "ISSUE.md").read_text()
        if words := harness_words(text):
            found[case.stem] = sorted(set(words))
    assert not found


def test_a_bug_torch_alone_shows_goes_to_pytorch_with_a_torch_only_script(corpus_export):
    name = "torch_decompositions_specialize_empty_at_example"
    record = _record(corpus_export, name)
    assert (record["tracker"], record["stage"], record["outcome"]) == (
        "pytorch/pytorch",
        "decompositions",
        "reproduces",
    )
    assert _imports((corpus_export / name / "repro.py").read_text()) == {"torch"}
    issue = (corpus_export / name / "ISSUE.md").read_text()
    assert "### 🐛 Describe the bug" in issue and "### Versions" in issue
    assert "OS: " in issue and "[pip3] torch==" in issue


def test_the_index_has_a_row_per_root_cause(corpus_export):
    from fuzz.corpus import root_causes

    text = (corpus_export / "README.md").read_text()
    causes = root_causes(CASES)
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "/ISSUE.md)" in ln]
    assert len(rows) == len(causes) < len(CASES)
    for cause in causes:
        assert f"]({cause.name}/ISSUE.md) | {cause.status} |" in text, cause.name


# ---- a case that names no kinds, a fault under the script, the command line -----------------

_NO_KINDS = {
    "exir": '''"""Written by hand: an integer remainder with signs that differ."""

import torch


def program(a, b):
    return (torch.remainder(a, b) * 1,)


def calls():
    return [(torch.tensor([-4, 3, 5]), torch.tensor([3, -2, 2]))]


LANES = ("exir",)
''',
    "thunder": '''"""Written by hand: a program every stack gets right."""

import torch


def program(x, n):
    return (x.sum(0) * n, x.t())


def calls():
    return [(torch.randn(2, 3), 2), (torch.randn(4, 3), 3)]


LANES = ("thunder",)
''',
}


@pytest.mark.parametrize("lane", ["exir", "thunder"])
def test_a_case_that_names_no_kinds_gets_every_check_of_its_lane(lane, tmp_path):
    case = tmp_path / f"hand_{lane}.py"
    case.write_text(_NO_KINDS[lane])
    done = export_case(case, tmp_path / "out")
    text = (done.folder / "repro.py").read_text()
    assert "UNSUPPORTED" not in text and done.kinds == ()
    if lane == "exir":  # the remainder bug of the runtime shows: the first check that fails
        assert (done.outcome, done.stage, done.tracker) == (
            "reproduces",
            "runtime",
            "pytorch/executorch",
        )
        assert "torch.testing.assert_close(actual" in text
    else:  # nothing shows: the script is every Thunder check, and says so by passing
        assert done.outcome == "ok" and done.checks == ("values", "sharing", "hit")
        for check in ("torch.testing.assert_close(", "assert shared(", "assert [ops("):
            assert check in text, check


_EDGE_CASE = '''"""logsumexp over two dims, the edge program against eager."""

import torch


def program(x0):
    return torch.logsumexp(x0, dim=(0, 2), keepdim=False)


def calls():
    return [(torch.randn(3, 4, 5),)]


LANES = ("exir",)
EXPECT = ("exir.edge-result",)
'''


def test_a_script_shows_a_fault_injected_into_the_stack(tmp_path):
    """The edge-program script passes on the stock stack and fails with a realistic fault
    in to_edge's logsumexp decomposition installed first (the script stays standalone)."""
    case = tmp_path / "edge_logsumexp.py"
    case.write_text(_EDGE_CASE)
    done = export_case(case, tmp_path / "out")
    assert (done.outcome, done.stage) == ("ok", "to_edge")
    script = done.folder / "repro.py"
    assert "to_executorch" not in script.read_text()  # the runtime had no part in it
    run = (
        "import runpy, sys\n"
        "import tests.faults.logsumexp_squeeze_first\n"
        "sys.argv = [sys.argv[1]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    faulty = subprocess.run(
        [sys.executable, "-c", run, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert faulty.returncode == 1, faulty.stdout + faulty.stderr[-2000:]
    assert "AssertionError" in faulty.stderr and "shape" in faulty.stderr
    assert run_script(script, "exir").outcome == "ok"


def test_the_command_line_writes_the_files_and_the_index(tmp_path):
    case = ROOT / "corpus" / "thunder_copy_broadcast.py"
    assert cli(["repro", str(case), "--out", str(tmp_path)]) == 0
    folder = tmp_path / "thunder_copy_broadcast"
    assert {p.name for p in folder.iterdir()} == {"repro.py", "ISSUE.md", "repro.json"}
    issue = (folder / "ISSUE.md").read_text()
    for section in ("## 🐛 Bug", "#### Code sample", "### Expected behavior", "### Environment"):
        assert section in issue
    assert "thunder_copy_broadcast/ISSUE.md" in (tmp_path / "README.md").read_text()
    assert cli(["repro", str(tmp_path / "missing.py"), "--out", str(tmp_path)]) == 2
