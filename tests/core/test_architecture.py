"""The layering the README promises, checked: a torch-free core, no import cycle among
fuzz/ and fixes/ modules (imports inside functions count), fixes/ below fuzz/, and
modules small enough to read (or saying why they are one piece). The layer order itself
is an import-linter contract in pyproject.toml (`lint-imports`, run by .ci/run).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp (a test dependency) is not installed")

ROOT = Path(__file__).resolve().parents[2]
CORE = (
    "fuzz.case",
    "fuzz.divergence",
    "fuzz.signature",
    "fuzz.corpus",
    "fuzz.known",
    "fuzz.errors",
    "fuzz.buckets",
    "fuzz.speedups",
    "fuzz.campaign.protocol",
    "fuzz.backends.registry",
)
MAX_LINES = 400


def test_the_core_imports_without_torch():
    code = "import sys; sys.modules['torch'] = None; import " + ", ".join(CORE)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


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


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def test_modules_are_small_or_say_why_they_are_one_piece():
    big = []
    for folder in ("fuzz", "fixes"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = len(path.read_text().splitlines())
            if lines > MAX_LINES and "one piece" not in _docstring(path):
                big.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert big == []
