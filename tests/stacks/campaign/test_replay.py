"""`python -m fuzz replay`: the seeded corpus passes with fixes on and shows the Thunder
seed bugs with fixes off; malformed cases are errors naming the file while good cases
still run; exit statuses. Replays run in subprocesses (the fixes are process-wide)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fixes
from fuzz.outcome import Outcome, classify
from fuzz.replay import exit_status
from tests.helpers import python_path

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "corpus"
THUNDER_SEEDS = [
    "corpus/thunder_symbolic_cache_broadcast.py",
    "corpus/thunder_symbolic_cache_shape_branch.py",
]


def replay(*args: str, env: dict | None = None, timeout: int = 400):
    full_env = dict(os.environ)
    full_env.pop(fixes.ENV_VAR, None)
    full_env["PYTHONPATH"] = python_path()
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "fuzz", "replay", *args, "--json", "-"],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = None
    return proc, doc


def by_case(doc) -> dict[tuple[str, str], dict]:
    return {(r["case"], r["lane"]): r for r in doc["results"]}


def needs_thunder_fix():
    if "thunder-symbolic-cache" not in fixes.all_fixes():
        pytest.skip("the thunder-symbolic-cache fix is not registered yet (fixes/__init__.py)")


@pytest.mark.slow
def test_seeded_corpus_passes_with_fixes_on():
    needs_thunder_fix()
    proc, doc = replay("corpus", "--fixes", "on", "--lanes", "thunder,exir", "--devices", "cpu")
    assert doc is not None, proc.stderr[-3000:]
    results = by_case(doc)
    for case in ("thunder_symbolic_cache_broadcast", "thunder_symbolic_cache_shape_branch"):
        assert results[(case, "thunder")]["status"] == "pass", results[(case, "thunder")]
    spec = results[("executorch_specprop_unbacked_bound", "exir")]
    assert spec["status"] == "pass", spec
    # Every fix is on, so a case with EXPECT that shows exactly those kinds is "expected";
    # the only skips are lanes a case excludes itself (LANES), never a lane that gave up.
    assert doc["fixes"]["all_on"] and "thunder-symbolic-cache" in doc["fixes"]["active"]
    ran = [r for r in doc["results"] if not r["reason"].startswith("the case does not run")]
    assert ran and all(r["status"] in ("pass", "expected") for r in ran), [
        r for r in ran if r["status"] not in ("pass", "expected")
    ]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert doc["versions"]["lightning-thunder"] and doc["exit"] == 0


@pytest.mark.slow
def test_fixes_off_finds_the_thunder_seed_bugs():
    needs_thunder_fix()
    proc, doc = replay(*THUNDER_SEEDS, "--fixes", "off", "--lanes", "thunder", "--devices", "cpu")
    assert doc is not None, proc.stderr[-3000:]
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert doc["fixes"]["active"] == {}
    for r in doc["results"]:
        assert r["status"] == "divergence", r
        kinds = {d["kind"] for d in r["divergences"]}
        assert "thunder.unsound-hit" in kinds, r
        assert {d["stage"] for d in r["divergences"]} == {"call[1]"}
        # The stock cache's bug is recognised as registered (MATCHES on symbolic_cache).
        for d in r["divergences"]:
            assert "thunder_symbolic_cache_shape_branch" in d["known_as"], r


def test_malformed_cases_are_errors_and_good_cases_still_run(tmp_path):
    (tmp_path / "a_syntax.py").write_text("def program(x)\n    return x\n")
    (tmp_path / "b_no_calls.py").write_text("def program(x):\n    return x\n")
    (tmp_path / "c_calls_raise.py").write_text(
        "def program(x):\n    return x\n\ndef calls():\n    raise RuntimeError('boom')\n"
    )
    (tmp_path / "d_good.py").write_text(
        '"""A good case."""\nimport torch\n\ndef program(x):\n    return x * 2\n\n'
        "def calls():\n    return [(torch.randn(2, 3),), (torch.randn(4, 3),)]\n"
    )
    missing = tmp_path / "e_missing.py"
    # The test lane (tests/crash_ops.py, no crash mode) stands in for Thunder: fast.
    proc, doc = replay(
        str(tmp_path),
        str(missing),
        "--fixes",
        "off",
        "--lanes",
        "thunder",
        "--devices",
        "cpu",
        "--plugin",
        "tests.crash_ops",
        env={"FUZZ_TEST_LANE": ""},
    )
    assert doc is not None, proc.stderr[-3000:]
    assert proc.returncode == 2
    results = {r["case"]: r for r in doc["results"]}
    assert results["d_good"]["status"] == "pass"
    errors = {name: r["reason"] for name, r in results.items() if r["status"] == "error"}
    assert set(errors) == {"a_syntax", "b_no_calls", "c_calls_raise", "e_missing"}
    assert "a_syntax.py" in errors["a_syntax"] and "syntax error at line 1" in errors["a_syntax"]
    assert "b_no_calls.py" in errors["b_no_calls"] and "missing `calls`" in errors["b_no_calls"]
    assert "c_calls_raise.py" in errors["c_calls_raise"]
    assert "RuntimeError: boom" in errors["c_calls_raise"]
    assert "no such file" in errors["e_missing"]
    assert "a_syntax.py" in proc.stderr  # the text report names the file too


def test_usage_errors_exit_2(tmp_path):
    proc, _ = replay(str(tmp_path), "--lanes", "nope")
    assert proc.returncode == 2 and "unknown lane" in proc.stderr
    proc, _ = replay(str(tmp_path), "--fixes", "no-such-fix")
    assert proc.returncode == 2 and "no-such-fix" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "fuzz", "replay"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2


GOOD_CASE = (
    '"""A good case."""\nimport torch\n\ndef program(x):\n    return x * 2\n\n'
    "def calls():\n    return [(torch.randn(2, 3),)]\n"
)
BAD_PLUGINS = [
    ("no.such.module", "ModuleNotFoundError: No module named 'no'"),
    ("raising_plugin", "RuntimeError: plugin boom"),  # it exists and raises on import
]


def plugin_env(tmp_path) -> dict:
    """PYTHONPATH with `raising_plugin`, a module that raises on import, in tmp_path."""
    (tmp_path / "raising_plugin.py").write_text("raise RuntimeError('plugin boom')\n")
    return {"PYTHONPATH": os.pathsep.join([python_path(), str(tmp_path)])}


@pytest.mark.parametrize("plugin, error", BAD_PLUGINS, ids=["missing", "raising"])
@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "isolate"])
def test_a_plugin_that_cannot_be_imported_is_a_usage_error(tmp_path, plugin, error, isolate):
    (tmp_path / "good.py").write_text(GOOD_CASE)
    more = ["--isolate"] if isolate else []
    args = [str(tmp_path / "good.py"), "--fixes", "off", "--plugin", plugin, *more]
    proc, doc = replay(*args, env=plugin_env(tmp_path))
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert f"error: --plugin {plugin}: cannot import: {error}" in proc.stderr, proc.stderr
    assert doc is None and "Traceback" not in proc.stderr  # refused before any case ran


def test_an_isolated_run_reports_a_plugin_that_cannot_be_imported_as_an_error(tmp_path):
    """The child of `--isolate` (and of the nightly crash confirmation) gives an error
    outcome naming the plugin, not a crash of the lane."""
    (tmp_path / "good.py").write_text(GOOD_CASE)
    proc = subprocess.run(
        [sys.executable, "-m", "fuzz.outcome", str(tmp_path / "good.py"), "thunder", "cpu"]
        + ["--fixes", "off", "--plugin", "raising_plugin"],
        cwd=ROOT,
        env=dict(os.environ) | plugin_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("OUTCOME ")]
    outcome = json.loads(line[len("OUTCOME ") :])
    assert outcome["status"] == "error", outcome
    assert outcome["reason"] == "--plugin raising_plugin: cannot import: RuntimeError: plugin boom"


def test_classification_and_exit_status():
    class Case:
        expect = ("thunder.aliasing", "thunder.wrong-result", "exir.overlap")

    case = Case()
    both = {"thunder.aliasing", "thunder.wrong-result"}
    assert classify(case, "thunder", set(), True) == "pass"
    assert classify(case, "thunder", both, True) == "expected"
    assert classify(case, "thunder", both, False) == "divergence"  # fixes off: no EXPECT
    assert classify(case, "thunder", {"thunder.aliasing"}, True) == "divergence"
    assert classify(case, "thunder", both | {"thunder.crash"}, True) == "divergence"

    def outcome(status):
        return Outcome("c", "c.py", "thunder", "cpu", status)

    assert exit_status([outcome("pass"), outcome("expected"), outcome("skip")]) == 0
    assert exit_status([outcome("pass"), outcome("divergence")]) == 1
    assert exit_status([outcome("divergence"), outcome("error")]) == 2


def test_isolated_replay_turns_a_crashing_case_into_a_crash_divergence(tmp_path):
    head = '"""Case."""\nimport torch\n\ndef program(x):\n    return x + 1\n\n'
    (tmp_path / "crashes.py").write_text(head + "def calls():\n    return [(torch.randn(7, 2),)]\n")
    (tmp_path / "fine.py").write_text(head + "def calls():\n    return [(torch.randn(3, 2),)]\n")
    # The test lane aborts its process on an input with a dim of 7 (tests/crash_ops.py).
    proc, doc = replay(
        str(tmp_path),
        "--fixes",
        "off",
        "--lanes",
        "thunder",
        "--devices",
        "cpu",
        "--plugin",
        "tests.crash_ops",
        "--isolate",
        "--timeout",
        "30",
        env={"FUZZ_TEST_LANE": "crash", "FUZZ_TEST_CRASH_DIM": "7"},
    )
    assert doc is not None, proc.stderr[-3000:]
    results = {r["case"]: r for r in doc["results"]}
    assert results["fine"]["status"] == "pass", results["fine"]
    crash = results["crashes"]
    assert crash["status"] == "divergence"
    assert crash["divergences"][0]["kind"] == "thunder.crash"
    assert "SIGABRT" in crash["divergences"][0]["details"]
    assert proc.returncode == 1


KNOWN_THEN_UNSUPPORTED = """\"\"\"The known disjoint-views bug at call 0, then nonzero.\"\"\"
import torch


def program(a, b):
    a.add_(b)
    if a.shape[0] == 3:
        return (a * 1,)
    return (torch.nonzero(a > 0),)


def calls():
    base0 = torch.randn(3, 8)
    base1 = torch.randn(4, 8)
    return [(base0[:, :4], base0[:, 4:]), (base1[:, :4], base1[:, 4:])]


LANES = ("thunder",)
"""


@pytest.mark.slow
def test_divergences_before_an_unsupported_stop_are_kept_and_named_known(tmp_path):
    """Thunder stops at call 1 (nonzero is unsupported), after showing the registered
    disjoint-views bug at call 0: that is a divergence (known_as names the corpus case),
    never a skip that exits 0."""
    needs_thunder_fix()
    path = tmp_path / "known_then_unsupported.py"
    path.write_text(KNOWN_THEN_UNSUPPORTED)
    proc, doc = replay(
        str(path),
        "--fixes",
        "on",
        "--lanes",
        "thunder",
        "--devices",
        "cpu",
        "--corpus",
        str(CORPUS),
    )
    assert doc is not None, proc.stderr[-3000:]
    (result,) = doc["results"]
    assert result["status"] == "divergence", result
    assert "then the lane stopped" in result["note"] and "nonzero" in result["note"]
    assert {d["stage"] for d in result["divergences"]} == {"call[0]"}
    mutation = [d for d in result["divergences"] if d["kind"] == "thunder.aliasing"]
    assert mutation and all(
        d["known_as"] == ["thunder_disjoint_views_inplace"] for d in mutation
    ), result["divergences"]
    assert proc.returncode == 1


def test_replay_json_names_no_known_bug_for_a_new_divergence(tmp_path):
    """The test lane's `diverge` mode reports a wrong result on every program using
    torch.sin: no corpus case registers it, so known_as is empty."""
    (tmp_path / "sin.py").write_text(
        '"""Case."""\nimport torch\n\ndef program(x):\n    return torch.sin(x)\n\n'
        "def calls():\n    return [(torch.randn(3, 2),)]\n"
    )
    proc, doc = replay(
        str(tmp_path),
        "--fixes",
        "off",
        "--lanes",
        "thunder",
        "--devices",
        "cpu",
        "--plugin",
        "tests.crash_ops",
        "--corpus",
        str(CORPUS),
        env={"FUZZ_TEST_LANE": "diverge"},
    )
    assert doc is not None, proc.stderr[-3000:]
    (result,) = doc["results"]
    assert result["status"] == "divergence" and result["divergences"]
    assert all(d["known_as"] == [] for d in result["divergences"])
    assert doc["corpus"] == [str(CORPUS)] and proc.returncode == 1


def test_the_note_says_whether_fixes_off_kinds_are_expects():
    """With a fix off, EXPECT's kinds are a divergence (EXPECT is judged with every fix
    on); the note must not claim they differ from EXPECT when they are the same."""
    from fuzz.case import case_from_source
    from fuzz.outcome import _finish

    case = case_from_source(
        "import torch\n\ndef program(x):\n    return (x,)\n\ndef calls():\n"
        "    return [(torch.ones(1),)]\n\nLANES = ('thunder',)\n"
        "EXPECT = ('thunder.crash',)\n",
        "expects_a_crash",
    )

    def note(kinds, fixes_on):
        out = Outcome(case.name, case.where, "thunder", "cpu", "pass", expect=list(case.expect))
        return _finish(out, case, "thunder", kinds, fixes_on).note

    assert "are EXPECT's" in note({"thunder.crash"}, fixes_on=False)
    assert "differ from EXPECT" in note({"thunder.wrong-result"}, fixes_on=False)
    assert note({"thunder.crash"}, fixes_on=True) == ""  # expected: no note
