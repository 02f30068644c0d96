"""`python -m fuzz repro`: every corpus case becomes a standalone repro.py and an ISSUE.md.

The scripts import only the stacks and the standard library, embed the case's program and
calls() as they are, and, run isolated on the stock stack, agree with the harness's
replay with the fixes off: both reproduce the case's divergence, or neither does. A kind
the scripts cannot check without the harness (fuzz.repro_export.script.NOT_CHECKABLE)
prints UNSUPPORTED and exits 2; those items are skipped with that reason, so pytest's
summary counts them.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.__main__ import main as cli
from fuzz.case import load_case
from fuzz.repro_export import export_case, run_script

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "corpus").glob("*.py"))
STACKS = {"torch", "executorch", "thunder"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("repros")
    return {path.stem: export_case(path, out, run=False) for path in CASES}


def _imports(source: str) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            tops.add((node.module or "").split(".")[0])
    return tops


def test_every_corpus_case_is_exported_as_a_script_and_an_issue(exported):
    assert len(CASES) >= 37
    assert set(exported) == {p.stem for p in CASES}
    for name, done in exported.items():
        assert done.folder.name == name
        assert (done.folder / "repro.py").is_file() and (done.folder / "ISSUE.md").is_file()


def test_scripts_import_only_the_stacks_and_the_standard_library(exported):
    for name, done in exported.items():
        tops = _imports((done.folder / "repro.py").read_text())
        foreign = {t for t in tops if t not in STACKS and t not in sys.stdlib_module_names}
        assert not foreign, f"{name} imports {foreign}"
        assert not tops & {"fuzz", "fixes"}, name
        # the lane's own stack, and only it
        assert ("thunder" in tops) == (done.lane == "thunder"), name
        assert ("executorch" in tops) == (done.lane == "exir"), name


def test_scripts_embed_the_program_and_calls_of_the_case_verbatim(exported):
    for path in CASES:
        source = path.read_text()
        script = (exported[path.stem].folder / "repro.py").read_text()
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef) and node.name in ("program", "calls"):
                assert ast.get_source_segment(source, node) in script, (path.stem, node.name)
        compile(script, str(path), "exec")  # and the script is valid Python


def _bound_by_imports(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def test_scripts_bind_every_name_their_case_imports(exported):
    """`import torch.nn.functional as F` in a case (every generated program with an F op)
    binds F in its script: without it eager and the stack raise the same NameError, and
    the script says OK where the case diverges."""
    for path in CASES:
        wanted = _bound_by_imports(path.read_text()) - {"fuzz", "fixes"}
        script = (exported[path.stem].folder / "repro.py").read_text()
        missing = wanted - _bound_by_imports(script)
        assert not missing, f"{path.stem}: the script does not bind {missing}"


def test_issue_md_has_title_versions_repro_expected_actual_cause_and_links(exported):
    torch_version = importlib.metadata.version("torch")
    for path in CASES:
        case, done = load_case(path), exported[path.stem]
        text = (done.folder / "ISSUE.md").read_text()
        assert text.startswith("# [")
        for section in ("Versions", "Repro", "Expected", "Actual", "Root cause", "Related"):
            assert f"\n## {section}\n" in text, (path.stem, section)
        assert f"- torch {torch_version}" in text
        assert (done.folder / "repro.py").read_text().rstrip() in text
        if case.upstream:
            assert f"- {case.upstream}" in text
        if "\n\n" in case.doc:  # the docstring past its summary line is the root cause
            assert case.doc.split("\n\n", 1)[1].strip().splitlines()[0] in text


def test_the_scripts_check_the_kinds_of_the_case(exported):
    checks = {name: (done.kinds, done.check) for name, done in exported.items()}
    for name, (kinds, check) in checks.items():
        assert kinds, f"{name}: no divergence kind to check"
        if check is None:  # said honestly in the script
            script = (exported[name].folder / "repro.py").read_text()
            assert "UNSUPPORTED: " in script and "WHY_UNSUPPORTED = " in script
        else:
            assert check in ("RUN", "EDGE", "CONTRACT", "BOUNDS", "thunder"), name
    # exir.pipeline-variance needs the harness's copy of to_executorch's pass loop
    variance = [n for n, (kinds, _) in checks.items() if kinds == ("exir.pipeline-variance",)]
    assert variance and all(checks[n][1] is None for n in variance)


def test_an_unsupported_kind_exits_2_and_says_why(exported):
    done = next(d for d in exported.values() if d.check is None)
    status, output = run_script(done.folder / "repro.py")
    assert status == 2, output
    assert "UNSUPPORTED: " in output and "DIVERGES" not in output


def test_the_command_line_writes_both_files(tmp_path):
    case = ROOT / "corpus" / "thunder_copy_broadcast.py"
    assert cli(["repro", str(case), "--out", str(tmp_path), "--no-run"]) == 0
    assert (tmp_path / "thunder_copy_broadcast" / "repro.py").is_file()
    assert "(not run at export" in (tmp_path / "thunder_copy_broadcast" / "ISSUE.md").read_text()
    assert cli(["repro", str(tmp_path / "missing.py"), "--out", str(tmp_path)]) == 2


# exir.edge-result: a program whose operator the runtime has no kernel for is checked on
# its edge program, run in eager. Multi-dim logsumexp goes through to_edge's (torch's)
# decomposition, which benchmarks/faults/logsumexp_squeeze_first.py breaks.
_EDGE_CASE = '''"""logsumexp over two dims, the edge program against eager."""

import torch


def program(x0):
    return torch.logsumexp(x0, dim=(0, 2), keepdim=False)


def calls():
    return [(torch.randn(3, 4, 5),)]


LANES = ("exir",)
EXPECT = ("exir.edge-result",)
'''


@pytest.fixture(scope="module")
def edge_script(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edge")
    case = folder / "exir_edge_logsumexp.py"
    case.write_text(_EDGE_CASE)
    done = export_case(case, folder / "out", run=False)
    assert (done.kinds, done.check) == (("exir.edge-result",), "EDGE")
    return done.folder / "repro.py"


def test_an_edge_result_script_passes_where_to_edge_is_right(edge_script):
    text = edge_script.read_text()
    assert "to_executorch(" not in text.split("# ---- the check", 1)[1]  # no runtime
    status, output = run_script(edge_script)
    assert status == 0, output
    assert "OK: export and to_edge succeed" in output and "DIVERGES" not in output


def test_an_edge_result_script_shows_a_faulty_decomposition(edge_script):
    """The script run with the fault plugin installed first (the script itself stays
    standalone): to_edge's logsumexp decomposition squeezes one reduced dim only."""
    run = (
        "import runpy, sys\n"
        "import benchmarks.faults.logsumexp_squeeze_first\n"
        "sys.argv = [sys.argv[1]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", run, str(edge_script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "DIVERGES: call 0: output 0: shape (4, 4), expected (4,)" in done.stdout


def _replay_reproduces(case: Path, lane: str, kinds: tuple[str, ...]) -> bool:
    """Whether `python -m fuzz replay CASE --fixes off --speedups off` (the stock stacks)
    shows one of `kinds` on lane/cpu."""
    done = subprocess.run(
        [sys.executable, "-m", "fuzz", "replay", str(case), "--fixes", "off", "--isolate"]
        + ["--speedups", "off"]
        + ["--lanes", lane, "--devices", "cpu", "--json", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    results = json.loads(done.stdout)["results"]
    ran = [r for r in results if r["lane"] == lane and r["device"] == "cpu"]
    assert ran and all(r["status"] != "error" for r in ran), ran
    return any(d["kind"] in kinds for r in ran for d in r["divergences"])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_the_script_agrees_with_the_stock_replay(case, tmp_path):
    done = export_case(case, tmp_path, run=False)
    status, output = run_script(done.folder / "repro.py")
    assert status in (0, 1, 2), f"the script failed ({status}):\n{output}"
    if status == 2:
        # a kind the script cannot check, or a .pte holding the harness's custom ops,
        # which the stock runtime has no kernel for (the harness runs its own)
        assert "UNSUPPORTED: " in output
        assert done.check is None or "harness's custom ops" in output, output
        pytest.skip(output.splitlines()[-1][:200])
    assert ("DIVERGES: " in output) == (status == 1), output
    assert ("OK: " in output) == (status == 0), output
    replayed = _replay_reproduces(case, done.lane, done.kinds)
    assert (status == 1) == replayed, (
        f"script {'reproduces' if status == 1 else 'does not reproduce'}, "
        f"replay --fixes off --speedups off {'does' if replayed else 'does not'}:\n{output}"
    )
