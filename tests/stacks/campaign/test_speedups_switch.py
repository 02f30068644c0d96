"""The speedups switch (fuzz/speedups.py): off means the stock stacks, and every record
says which it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz import speedups
from fuzz.campaign.findings import describe
from fuzz.procs import child_env

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def stock(monkeypatch):
    """This test's process with the switch off; the speedups come back after it."""
    from fuzz.backends.exir import speedups as exir_speedups

    was = exir_speedups.installed()
    monkeypatch.setenv(speedups.ENV_VAR, "off")
    yield exir_speedups
    (exir_speedups.install if was else exir_speedups.uninstall)()


def test_the_switch_comes_from_the_flag_then_the_environment_then_on(monkeypatch):
    monkeypatch.delenv(speedups.ENV_VAR, raising=False)
    assert speedups.switch() == "on" and speedups.enabled()
    monkeypatch.setenv(speedups.ENV_VAR, "OFF")
    assert speedups.switch() == "off" and not speedups.enabled()
    assert speedups.switch("on") == "on"
    with pytest.raises(speedups.SpeedupsError, match=r"\$FUZZ_SPEEDUPS must be"):
        monkeypatch.setenv(speedups.ENV_VAR, "fast")
        speedups.switch()
    with pytest.raises(speedups.SpeedupsError, match="--speedups must be"):
        speedups.switch("maybe")


def test_the_switch_names_lanes_with_the_fixes_parser(monkeypatch):
    monkeypatch.delenv(speedups.ENV_VAR, raising=False)
    assert speedups.switch("exir") == "exir" and speedups.switch("thunder, exir") == "on"
    assert speedups.switch("none") == "off"
    monkeypatch.setenv(speedups.ENV_VAR, "exir")
    assert speedups.enabled() and speedups.enabled("exir") and not speedups.enabled("thunder")
    assert speedups.lanes() == ["exir"]
    with pytest.raises(speedups.SpeedupsError, match=r"--speedups must be .*'nope'"):
        speedups.switch("exir,nope")


def test_off_uninstalls_and_the_exir_pipeline_then_builds_on_the_stock_stack(stock, monkeypatch):
    import torch

    from fuzz.backends.exir.pipeline import build

    stock.install()
    assert speedups.state()["installed"]
    speedups.apply("off")
    assert not stock.installed()
    build(lambda x: (x * 2.0,), (torch.randn(3),))  # installed them on every build before
    assert not stock.installed()
    assert speedups.state() == {"switch": "off", "installed": [], "skipped": {}}
    monkeypatch.setenv(speedups.ENV_VAR, "on")
    build(lambda x: (x * 2.0,), (torch.randn(3),))
    assert "exir:collect" in speedups.state()["installed"]


def test_case_files_and_descriptions_say_which_speedups_ran():
    record = {"switch": "on", "installed": ["exir:collect"], "skipped": {"exir:override": "x"}}
    assert speedups.describe(record) == "on (installed: exir:collect); skipped: exir:override: x"
    assert speedups.describe(None) == "not recorded"
    text = describe(
        [{"kind": "exir.crash", "stage": "to_edge", "details": "boom", "device": "cpu"}],
        how="Found by a test.",
        fixes={},
        versions={},
        shrunk="yes",
        signatures=["abc"],
        switch="on",
        speedups={"switch": "off", "installed": [], "skipped": {}},
        plugins=("tests.faults.cond_jump",),
        stock="reproduced with the speedups off",
    )
    assert "Speedups: off." in text
    assert "Found under plugins: tests.faults.cond_jump." in text
    assert "On the stock stacks: reproduced with the speedups off." in text
    assert "--speedups off --plugin tests.faults.cond_jump" in text


CASE = '''"""A case for the switch."""

import torch


def program(x):
    return (x * 2.0,)


def calls():
    return [(torch.randn(3),)]


LANES = ("exir",)
'''


@pytest.mark.slow
@pytest.mark.parametrize("switch", ["on", "off"])
def test_replay_records_the_switch_and_what_it_installed(tmp_path, switch):
    case = tmp_path / "case.py"
    case.write_text(CASE)
    cmd = [sys.executable, "-m", "fuzz", "replay", str(case), "--lanes", "exir"]
    cmd += ["--devices", "cpu", "--speedups", switch, "--json", "-", "--corpus", str(tmp_path)]
    done = subprocess.run(
        cmd, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads(done.stdout)["speedups"]
    assert record["switch"] == switch
    assert bool(record["installed"]) == (switch == "on"), record
    assert f"speedups: {switch}" in done.stderr
