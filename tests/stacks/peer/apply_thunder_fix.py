"""pytest plugin: run Thunder's own tests against the patched package.

Loaded with `-p apply_thunder_fix` (tests/stacks/peer and the repo root on PYTHONPATH) by
tests/stacks/peer/test_thunder_peer_suite.py, in a subprocess that collects tests from the
installed wheel (`--pyargs thunder.tests.test_jit_general -k cache_symbolic_values`):

* `pytest_configure` installs the torch 2.13 import compat for Thunder 0.2.6 (always:
  without it `import thunder` fails) and, unless THUNDER_PEER_FIX=off, applies
  `fixes.apply(["thunder-symbolic-cache"])` before any Thunder test module is imported.
  The state goes into the report header, with every fix active in the run.
* Thunder's `thunder/tests/conftest.py` imports `pytest_benchmark` (and
  `thunder.dynamo.compiler_graph_benchmark` imports `pytest_benchmark.fixture`), so no
  Thunder test can be collected without the pytest-benchmark package. When it is not
  installed we put a minimal stand-in in `sys.modules` (the names those imports need plus
  the `pytest_benchmark_group_stats` hook spec the conftest implements) and say so in the
  header; none of the symbolic-values tests benchmarks anything. Install
  pytest-benchmark to run with the real one.
* With THUNDER_PEER_SPEEDUPS=on it also installs fuzz/backends/thunder/speedups.py (the
  lane's pure-overhead removals in Thunder's interpreter), so Thunder's own interpreter
  tests can be compared with and without them; the header says which.
* Upstream tests whose hit/miss counts encode the pre-fix behaviour are marked
  `xfail(strict=True)` with the reason in `pytest_collection_modifyitems` (they stay in
  the run and fail loudly if they start passing); nothing is deselected.
"""

from __future__ import annotations

import os
import sys
import types

import pytest

FIX = "thunder-symbolic-cache"

# test name -> why its expectation changes with the fix (only applied when the fix is on).
XFAIL_WITH_FIX: dict[str, str] = {
    "test_cache_symbolic_values_basic": (
        "traces `(a * scalar).sum(scalar)` with scalar=1 and expects scalar=2 to hit. The trace "
        "decided which axis is reduced from the traced value (`scalar == 0/1/2` while building "
        "the output shape, and utils.check_no_duplicates reads scalar.value), so with the fix "
        "scalar=2 is a miss (2 misses, 0 hits): the cached trace states output shape "
        "(a.shape[0], a.shape[2]) for any input"
    ),
    "test_cache_symbolic_values_constraints": (
        "traces `if scalar > 0: return scalar` with 1.5 and expects 2.0 to miss (its comment: "
        "'even though we should be able to re-use the cache, we cannot do it now'). With the "
        "fix the prologue replays `scalar > 0` instead of pinning scalar == 1.5, so 2.0 hits "
        "(1 miss, 1 hit where the test asserts 2 misses, 0 hits); -0.3 still misses"
    ),
}

_state: dict[str, str] = {}


def _stub_pytest_benchmark() -> bool:
    """Stand-in for pytest-benchmark when it is absent; True if the stub was installed."""
    try:
        import pytest_benchmark  # noqa: F401

        return False
    except ImportError:
        pass
    root = types.ModuleType("pytest_benchmark")
    root.__path__ = []  # a package, so `pytest_benchmark.fixture` can be imported
    fixture = types.ModuleType("pytest_benchmark.fixture")

    class BenchmarkFixture:  # only referenced as a name by thunder.dynamo
        pass

    fixture.BenchmarkFixture = BenchmarkFixture
    plugin = types.ModuleType("pytest_benchmark.plugin")

    def pytest_benchmark_group_stats(config, benchmarks, group_by):
        return []

    plugin.pytest_benchmark_group_stats = pytest_benchmark_group_stats
    root.fixture, root.plugin = fixture, plugin
    sys.modules.update(
        {
            "pytest_benchmark": root,
            "pytest_benchmark.fixture": fixture,
            "pytest_benchmark.plugin": plugin,
        }
    )
    return True


class _BenchmarkHookSpec:
    """The hook spec pytest-benchmark would register (Thunder's conftest implements it)."""

    @pytest.hookspec(firstresult=True)
    def pytest_benchmark_group_stats(self, config, benchmarks, group_by):
        pass


def pytest_addhooks(pluginmanager):
    if _stub_pytest_benchmark():
        _state["pytest-benchmark"] = "stub (package not installed)"
        pluginmanager.add_hookspecs(_BenchmarkHookSpec)
    else:
        _state["pytest-benchmark"] = "installed"


def pytest_configure(config):
    from fixes.compat_thunder_named_tensor import ensure

    ensure()
    if os.environ.get("THUNDER_PEER_SPEEDUPS", "off") == "on":
        from fuzz.backends.thunder import speedups as thunder_speedups

        thunder_speedups.install()
    _state["thunder-speedups"] = "installed" if _speedups_installed() else "off"
    if os.environ.get("THUNDER_PEER_FIX", "on") == "off":
        _state[FIX] = "off (stock Thunder)"
        return
    import fixes

    (status,) = fixes.apply([FIX])
    _state[FIX] = str(status)


def _speedups_installed() -> bool:
    module = sys.modules.get("fuzz.backends.thunder.speedups")
    return module is not None and module.installed()


def pytest_report_header(config):
    import fixes

    # Every fix applied in this run: only this plugin may apply one (tests/stacks/peer/upstream.py
    # keeps the repo's conftest.py, which applies every fix, out of it).
    return [f"{k}: {v}" for k, v in _state.items()] + [f"fixes active: {fixes.active()}"]


def pytest_collection_modifyitems(config, items):
    if not _state.get(FIX, "").endswith("applied"):
        return
    for item in items:
        reason = XFAIL_WITH_FIX.get(item.name)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"{FIX}: {reason}"))
