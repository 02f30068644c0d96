"""The layering the README promises, checked: what pyproject.toml's import-linter contracts
(`lint-imports`, run by .ci/run) cannot see. The modules those contracts keep from torch
import without it; every fuzz module is in a layer; no import cycle among fuzz/ and fixes/
modules (imports inside functions count), which is all that orders the modules of one
layer; fixes/ below fuzz/.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from fuzz.docs import layer_modules

grimp = pytest.importorskip("grimp", reason="grimp (a test dependency) is not installed")

ROOT = Path(__file__).resolve().parents[3]


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_modules_kept_from_torch_import_without_torch():
    # The one list: the source modules of every forbidden contract that forbids torch (the
    # core, the lane registry, the built-in lanes' kinds modules). fuzz.docs, whose
    # generators import more when they run, imports without torch too.
    kept = [
        module
        for c in _contracts()
        if c["type"] == "forbidden" and "torch" in c["forbidden_modules"]
        for module in c["source_modules"]
    ]
    assert "fuzz.divergence" in kept and "fuzz.backends.registry" in kept
    code = "import sys; sys.modules['torch'] = None; import fuzz.docs, " + ", ".join(kept)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_every_fuzz_module_is_in_a_layer():
    (layers,) = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    layered = {m for layer in layers for m in layer_modules(layer)}
    tops = {
        f"fuzz.{p.stem if p.is_file() else p.name}"
        for p in (ROOT / "fuzz").iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }
    assert tops - layered == set() and layered - tops == set()


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return out


@pytest.fixture(scope="module")
def graph():
    sys.path.insert(0, str(ROOT))
    try:
        # grimp reads every import statement, those inside functions too.
        return grimp.build_graph("fuzz", "fixes", cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))


def test_no_import_cycle_among_fuzz_and_fixes_modules(graph):
    assert _cycles(graph) == []


def test_fixes_never_import_the_harness(graph):
    offenders = [
        (m, i)
        for m in graph.modules
        if m.split(".")[0] == "fixes"
        for i in graph.find_modules_directly_imported_by(m)
        if i.split(".")[0] == "fuzz"
    ]
    assert offenders == []
