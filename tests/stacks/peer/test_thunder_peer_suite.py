"""Thunder's own symbolic-values tests, run against the patched package.

`thunder/tests/test_jit_general.py -k cache_symbolic_values` from the installed wheel, in a
subprocess (tests/stacks/peer/upstream.py) with the plugin tests/stacks/peer/apply_thunder_fix.py
(compat shim + the fix, applied before Thunder's test modules are imported). Where the fix
changes an upstream hit/miss expectation the plugin marks that test xfail(strict=True)
with the reason; everything else must pass (CUDA-only tests skip on CPU). A second run
with the fix off checks that the upstream tests pass on stock Thunder here, so a failure
with the fix is the fix's.

Thunder's interpreter tests (`thunder/tests/test_interpreter.py`, every test) run twice,
with and without fuzz/backends/thunder/speedups.py: every test must end the same way.

Thunder's tests/conftest.py imports pytest_benchmark: the plugin stands in for it when
the pytest-benchmark package is absent (see the plugin's docstring).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import fixes

PEER = Path(__file__).resolve().parent
TIMEOUT_S = 240
FIX = "thunder-symbolic-cache"

sys.path.insert(0, str(PEER))
from apply_thunder_fix import XFAIL_WITH_FIX  # noqa: E402
from upstream import UpstreamRun, run_upstream_suite  # noqa: E402

sys.path.remove(str(PEER))


def _run_upstream(tmp_path: Path, fix: bool) -> UpstreamRun:
    """Runs the upstream tests with the fix on (`fix`) or stock Thunder."""
    state = fixes.state_for(FIX)
    if state.state != "applies":
        pytest.skip(f"the fix and its expectations cover lightning-thunder 0.2.6: {state}")
    return run_upstream_suite(
        "thunder",
        [
            "-rA", "-W", "ignore::UserWarning", "-W", "ignore::DeprecationWarning",
            "--pyargs", "thunder.tests.test_jit_general",
            "-k", "cache_symbolic_values",
        ],
        tmp_path,
        plugin="apply_thunder_fix",
        env={"THUNDER_PEER_FIX": "on" if fix else "off"},
        timeout=TIMEOUT_S,
        label="fixed" if fix else "stock",
    )  # fmt: skip


def _header(run: UpstreamRun) -> str:
    return "\n".join(
        ln
        for ln in run.stdout.splitlines()
        if ln.startswith(
            ("thunder-symbolic-cache:", "thunder-speedups:", "pytest-benchmark:", "fixes active:")
        )
    )


@pytest.mark.slow
def test_upstream_symbolic_values_tests_with_fix(tmp_path):
    run = _run_upstream(tmp_path, fix=True)
    out = {name: o.outcome for name, o in run.outcomes.items()}
    log = run.stdout[-6000:]
    header = _header(run)
    assert "applied" in header, header
    assert f"fixes active: {{'{FIX}': 'applied'}}" in header, header
    assert out, f"no upstream test ran:\n{log}"
    for name in XFAIL_WITH_FIX:
        assert out.get(name) == "xfailed", f"{name}: {out.get(name)} (expected xfail)\n{log}"
    bad = {n: o for n, o in out.items() if o not in ("passed", "xfailed", "skipped")}
    assert not bad, f"upstream tests failing with the fix: {bad}\n{log}"
    assert sum(o == "passed" for o in out.values()) >= 5, out
    # Only CUDA-only tests may skip on a CPU machine.
    skipped = [n for n, o in out.items() if o == "skipped"]
    assert set(skipped) <= {"test_cache_symbolic_values_torch_device"}, skipped


@pytest.mark.slow
def test_upstream_symbolic_values_tests_stock(tmp_path):
    run = _run_upstream(tmp_path, fix=False)
    out = {name: o.outcome for name, o in run.outcomes.items()}
    log = run.stdout[-6000:]
    header = _header(run)
    assert "off (stock Thunder)" in header and "fixes active: {}" in header, header
    bad = {n: o for n, o in out.items() if o not in ("passed", "skipped")}
    assert not bad, f"upstream tests fail on stock Thunder here: {bad}\n{log}"
    # The tests we mark xfail with the fix do pass on stock Thunder (their expectation is
    # the pre-fix behaviour).
    for name in XFAIL_WITH_FIX:
        assert out.get(name) == "passed", (name, out.get(name))


@pytest.mark.slow
def test_upstream_interpreter_tests_end_the_same_with_and_without_the_speedups(tmp_path):
    """Thunder's own interpreter tests with the lane's speedups installed and without:
    the same outcome per test (the ones that cannot run here, e.g. without `litgpt`,
    fail in both runs and are compared like the rest)."""
    runs = {}
    for speedups in ("off", "on"):
        runs[speedups] = run_upstream_suite(
            "thunder",
            [
                "-rA", "-W", "ignore::UserWarning", "-W", "ignore::DeprecationWarning",
                "--pyargs", "thunder.tests.test_interpreter",
            ],
            tmp_path,
            plugin="apply_thunder_fix",
            env={"THUNDER_PEER_SPEEDUPS": speedups},
            timeout=TIMEOUT_S,
            label=f"interpreter-speedups-{speedups}",
        )  # fmt: skip
        assert f"thunder-speedups: {'installed' if speedups == 'on' else 'off'}" in _header(
            runs[speedups]
        ), _header(runs[speedups])
    off, on = ({n: o.outcome for n, o in runs[k].outcomes.items()} for k in ("off", "on"))
    assert sum(o == "passed" for o in off.values()) >= 200, runs["off"].summary()
    differ = {n: (off.get(n), on.get(n)) for n in off.keys() | on.keys() if off.get(n) != on.get(n)}
    assert not differ, f"outcomes (without, with the speedups): {differ}"
