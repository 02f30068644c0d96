"""The EXIR lane's layers: fuzz/oracles/ judges, fuzz/backends/exir/ gathers facts.

Static checks (nothing is imported): judgements never import the lane, and the modules
of the lane and of fuzz/oracles/ import each other without a cycle, counting imports
inside functions too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LAYERS = (ROOT / "fuzz" / "backends" / "exir", ROOT / "fuzz" / "oracles")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for layer in LAYERS for p in sorted(layer.glob("*.py"))}


def imports(path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `path` imports, anywhere in the file."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        out |= {n for n in names if n in known}
    return out


def test_judgements_do_not_import_the_lane():
    known = set(modules()) | {"fuzz.backends.exir"}
    for name, path in modules().items():
        if name.startswith("fuzz.oracles"):
            lane = {m for m in imports(path, known | {"fuzz.backends"}) if "backends" in m}
            assert not lane, f"{name} imports {lane}"


def test_no_import_cycles():
    mods = modules()
    graph = {name: imports(path, set(mods)) - {name} for name, path in mods.items()}
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep) :] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, stack + [dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert graph["fuzz.backends.exir.lane"]  # the scan sees imports at all
