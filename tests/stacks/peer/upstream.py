"""Run an upstream test module from an installed wheel in a subprocess; read its JUnit XML.

Used by both peer suites (test_thunder_peer_suite.py, test_executorch_peer_suite.py).
A subprocess, not `fixes.applied(...)` in this process: the upstream suite is a pytest
session of its own (its conftest, plugins and options must not mix with this one), and
the peer plugin applies the fix in `pytest_configure`, before the upstream test modules
are imported. The inner pytest runs `sys.executable -m pytest ... --pyargs <module>` with

* cwd and `--rootdir` in `tmp_path`: this repo's pyproject pytest settings do not apply
  to the upstream tests;
* `--confcutdir=<the package's directory>`: the wheels are installed under a `.venv`
  inside a checkout of this repo (the main lane's `.venv`, the legacy lane's
  `.venv-legacy`), so without it pytest would also load that checkout's conftest.py (an
  ancestor of the test files), which applies every fix. The package's own conftest.py
  files (e.g. thunder/tests/conftest.py) still load;
* the peer plugin (`-p <plugin>`, from tests/stacks/peer, on PYTHONPATH with the repo root), the
  only thing that decides which fixes are applied (`FUZZ_FIXES=off` for the rest);
* the interpreter's directory first on PATH (executorch 1.0.1 serializes programs with
  the `flatc` its wheel installs there), and no PYTEST_XDIST*/PYTEST_CURRENT_TEST/
  PYTEST_ADDOPTS from the outer run.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PEER = Path(__file__).resolve().parent

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One upstream test's result, from its JUnit `<testcase>`."""

    outcome: str  # one of OUTCOMES
    message: str = ""
    classname: str = ""


@dataclasses.dataclass(frozen=True)
class UpstreamRun:
    returncode: int
    stdout: str
    stderr: str
    outcomes: dict[str, Outcome]  # test name (as JUnit gives it) -> outcome

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def count(self, outcome: str) -> int:
        return sum(o.outcome == outcome for o in self.outcomes.values())

    def summary(self) -> str:
        """Return code, every test that did not pass, and the output's tail."""
        lines = [f"rc={self.returncode}"] + [
            f"{o.classname}::{name} {o.outcome} {o.message[:200]}"
            for name, o in self.outcomes.items()
            if o.outcome != "passed"
        ]
        return "\n".join(lines) + "\n--- output tail ---\n" + self.output[-6000:]


def package_dir(package: str) -> Path:
    """The installed directory of top-level package `package` (namespace packages too)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"{package} is not an installed package")
    return Path(list(spec.submodule_search_locations)[0])


def _outcome(case: ET.Element) -> Outcome:
    children = {child.tag: child for child in reversed(list(case))}  # first of each tag
    classname = case.get("classname", "")
    for tag, outcome in (("failure", "failed"), ("error", "error")):
        if tag in children:
            return Outcome(outcome, children[tag].get("message", ""), classname)
    if "skipped" in children:
        skipped = children["skipped"]
        outcome = "xfailed" if skipped.get("type", "") == "pytest.xfail" else "skipped"
        return Outcome(outcome, skipped.get("message", ""), classname)
    return Outcome("passed", "", classname)


def read_junit(path: Path) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        if name in outcomes:
            raise AssertionError(
                f"two upstream tests named {name!r} "
                f"({outcomes[name].classname}, {case.get('classname')}): outcomes are keyed by name"
            )
        outcomes[name] = _outcome(case)
    return outcomes


def run_upstream_suite(
    package: str,
    args: list[str],
    tmp_path: Path,
    *,
    plugin: str,
    env: dict[str, str] | None = None,
    timeout: int,
    label: str = "junit",
) -> UpstreamRun:
    """Runs `pytest <args>` (which name the upstream module with `--pyargs`) on the
    installed `package` with the peer `plugin`; `env` is added to the environment.
    Raises if the run produced no JUnit report."""
    run_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS"))
    }
    run_env["PYTHONPATH"] = os.pathsep.join(
        [str(PEER), str(ROOT), run_env.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    run_env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), run_env.get("PATH", "")])
    run_env["FUZZ_FIXES"] = "off"  # only the plugin decides
    run_env.update(env or {})
    junit = tmp_path / f"{label}.xml"
    cmd = [
        sys.executable, "-m", "pytest",
        f"--confcutdir={package_dir(package)}",
        "--rootdir", str(tmp_path),
        "-p", "no:cacheprovider",
        "-p", plugin,
        f"--junitxml={junit}",
        *args,
    ]  # fmt: skip
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=timeout
    )
    if not junit.exists():
        raise AssertionError(
            f"upstream run produced no report (rc={proc.returncode}):\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return UpstreamRun(proc.returncode, proc.stdout, proc.stderr, read_junit(junit))
