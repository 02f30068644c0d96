"""The speedups and the Thunder compat shim are patch sets of the fixes' mechanism
(fixes/_patching.py): each uninstalls exactly, and the shim, like the speedups, is
recorded in the worker hello, report.json, report.md, replay's JSON and case files."""

from __future__ import annotations

import importlib

import pytest

from fixes._patching import PatchSet
from fuzz import speedups
from fuzz.campaign.protocol import Hello, decode, encode
from fuzz.campaign.report import build_report
from fuzz.campaign.report_md import render_markdown
from fuzz.campaign.supervisor import Supervisor
from fuzz.campaign.triage import Triage, renderer
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.prepare import install_compat
from tests.cover.campaign.test_campaign_parts import _settings
from tests.stacks.campaign.test_stock import _finding

SETS = {
    "exir speedups": ("fuzz.backends.exir.speedups", "PATCHES"),
    "thunder speedups": ("fuzz.backends.thunder.speedups", "PATCHES"),
    "thunder compat shim": ("fixes.compat_thunder_named_tensor", "SHIM"),
}


def _owners(patch_set: PatchSet) -> dict[int, tuple[object, bool]]:
    return {id(p.owner): (p.owner, p.item) for p in patch_set.patches()}


def _snapshot(owners) -> dict[int, dict]:
    """Every name each owner holds itself, and the very object under it."""
    return {key: dict(owner if item else vars(owner)) for key, (owner, item) in owners.items()}


@pytest.mark.parametrize("label", sorted(SETS))
def test_uninstall_is_exact(label):
    """Installed then uninstalled, every object a set patched holds exactly the names and
    the very objects it held before (nothing added, removed or re-wrapped)."""
    module, attr = SETS[label]
    patch_set: PatchSet = getattr(importlib.import_module(module), attr)
    was = patch_set.is_installed()
    try:
        patch_set.uninstall()
        patch_set.install()
        owners = _owners(patch_set)
        assert owners or label == "thunder compat shim"  # the shim adds nothing on old torch
        patch_set.uninstall()
        before = _snapshot(owners)
        patch_set.install()
        assert all(p.is_applied() for p in patch_set.patches())
        patch_set.uninstall()
        after = _snapshot(owners)
        assert after.keys() == before.keys()
        for key, names in before.items():
            assert after[key].keys() == names.keys(), label
            changed = [n for n, v in names.items() if after[key][n] is not v]
            assert not changed, f"{label}: {changed} not restored"
    finally:
        (patch_set.install if was else patch_set.uninstall)()


def test_the_shim_is_installed_for_the_thunder_lane_and_recorded():
    import torch

    from fixes.compat_thunder_named_tensor import NAMED_TENSOR_METHODS, SHIM

    SHIM.uninstall()
    try:
        lacking = [n for n in NAMED_TENSOR_METHODS if not hasattr(torch.Tensor, n)]
        assert "thunder-named-tensor" not in speedups.compat_state()
        # The shim is the Thunder lane's (the record holds every recorded patch set: the
        # literal-pool override of fuzz.strategies, once imported, too).
        assert "thunder-named-tensor" not in install_compat(["exir"])
        record = install_compat(["thunder", "exir"])
        assert record["thunder-named-tensor"] == [f"Tensor.{n}" for n in lacking]
        assert all(hasattr(torch.Tensor, n) for n in NAMED_TENSOR_METHODS)
    finally:
        SHIM.install()


def test_the_literal_pool_override_is_gated_on_hypothesis_source_and_recorded(monkeypatch):
    from hypothesis.internal.conjecture import providers

    import fuzz.strategies as strategies

    pool = strategies.LITERAL_POOL
    where = "hypothesis.internal.conjecture.providers._get_local_constants"
    assert pool.is_installed(), pool.skipped  # this Hypothesis is the one it was written for
    assert speedups.compat_state()["hypothesis-literal-pool"] == [where]
    assert len(providers._get_local_constants()) == 0
    monkeypatch.setitem(strategies.LITERAL_POOL_SOURCES, "local-constants", "0" * 16)
    pool.uninstall()
    try:
        pool.install()  # another Hypothesis: upstream's pool is left as it is, and said so
        assert not pool.is_installed()
        (line,) = speedups.compat_state()["hypothesis-literal-pool"]
        assert line.startswith("skipped local-constants: upstream source differs")
    finally:
        pool.uninstall()
        monkeypatch.undo()
        pool.install()
    assert pool.is_installed()


def test_the_compat_record_reaches_the_report_and_the_case_file(tmp_path):
    """What a worker's hello says about the shim goes into report.json, report.md and the
    case file of a finding, next to the speedups."""
    compat = {"thunder-named-tensor": ["Tensor.align_as", "Tensor.rename"]}
    sup = Supervisor(_settings(tmp_path))
    hello = Hello(1, "node-a", {}, {}, {}, sup.harness, {"switch": "on"}, compat)
    assert decode(encode(hello)) == hello  # it travels from the worker intact
    sup.hello = hello
    f = _finding("thunder.wrong-result")
    sup.findings[f.bucket] = f
    into = DirectoryCorpus(tmp_path / "cases")
    stock = lambda *a: (0, False, {"status": "divergence", "divergences": [{"kind": f.kind}]})  # noqa: E731
    Triage(sup, CorpusIndex.of([into]), into, rerun=lambda *a: (0, False), stock=stock).run(
        renderer(sup)
    )
    doc = build_report(sup)
    assert doc["compat"] == compat
    line = "thunder-named-tensor (Tensor.align_as, Tensor.rename)"
    assert f"- compat shims: {line}" in render_markdown(doc)
    assert f"Compat shims: {line}." in open(f.path).read()
    assert speedups.describe_compat({}) == "none installed"
    assert speedups.describe_compat(None) == "not recorded"


@pytest.mark.slow
def test_replay_records_the_shim(tmp_path):
    """replay's JSON and its text say what the shim added, with the speedups off too (the
    shim is not switchable: the Thunder lane does not import without it)."""
    import json
    import subprocess
    import sys

    from fixes.compat_thunder_named_tensor import SHIM
    from fuzz.procs import child_env
    from tests.stacks.campaign.test_speedups_switch import CASE, ROOT

    SHIM.install()
    added = [p.where for p in SHIM.patches()]  # what it adds to this torch

    case = tmp_path / "case.py"
    case.write_text(CASE.replace('LANES = ("exir",)', 'LANES = ("thunder",)'))
    cmd = [sys.executable, "-m", "fuzz", "replay", str(case), "--lanes", "thunder"]
    cmd += ["--devices", "cpu", "--speedups", "off", "--json", "-", "--corpus", str(tmp_path)]
    done = subprocess.run(
        cmd, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(done.stdout)
    assert doc["speedups"]["installed"] == []
    assert doc["compat"] == {"thunder-named-tensor": added}
    described = speedups.describe_compat(doc["compat"])
    assert f"compat shims: {described}" in done.stderr and "thunder-named-tensor" in described
