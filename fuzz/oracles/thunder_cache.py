"""Cache oracles for Thunder: unsound hits and missed legal hits, by trace comparison.

A cache hit is sound when the cached computation trace is the one Thunder would build
for these inputs from scratch. We compare the cached initial computation trace with a
fresh jit's, after normalizing away what legitimately differs between two traces of the
same program: comments (they print the traced values), and proxy names (renumbered in
order of first appearance). A hit whose trace differs is a divergence even when the
numbers match (on CPU the torch executor re-broadcasts at run time, hiding a wrong trace).
"""

from __future__ import annotations

import difflib
import re

from fuzz.divergence import Divergence

_ANNOTATION = re.compile(r'^\w+: "')  # `a: "cpu f32[[IntegerProxy ... value=2 ...]]"`
_SOURCE_LINE = re.compile(r"^\S+:\d+:")  # `<stdin>:4:` / `file.py:6:  if ...`
_TRAILING = re.compile(r"\s+#.*$")  # `t15 = ...  # t15: "cpu f32[...]"`
_NAME = re.compile(r"\b[A-Za-z]+_?\d+\b")
# A symbol whose printed type is a number: scalar bookkeeping of a shape check.
_SCALAR_TYPE = re.compile(r'#\s*\w+: "(bool|int|float|complex)\b')


def normalize_trace(text: str) -> str:
    """Keep every symbol that produces a tensor, including the decomposition Thunder
    prints as nested comments (where broadcast decisions show as `broadcast_in_dim`), and
    the return. Dropped: what prints traced values, and the scalar bookkeeping of shape
    checks (`prims.eq(i1, 1)`, `prims.shape`): a decision that changes no tensor op does
    not make a cached trace wrong."""
    lines = []
    for raw in str(text).splitlines():
        line = raw.strip().lstrip("#").strip()
        if (
            not line
            or line.startswith(("import ", "from ", "@", "Constructed by"))
            or _ANNOTATION.match(line)
            or _SOURCE_LINE.match(line)
        ):
            continue
        if _SCALAR_TYPE.search(line) or "prims.shape(" in line:
            continue
        lines.append(_TRAILING.sub("", line))
    names: dict[str, str] = {}
    return "\n".join(
        _NAME.sub(lambda m: names.setdefault(m.group(0), f"%{len(names)}"), line) for line in lines
    )


def unsound_hit(cached: str, fresh: str, stage: str, device: str) -> Divergence | None:
    a, b = normalize_trace(cached), normalize_trace(fresh)
    if a == b:
        return None
    diff = "\n".join(
        difflib.unified_diff(a.splitlines(), b.splitlines(), "cached", "fresh", lineterm="", n=1)
    )
    return Divergence(
        "thunder.unsound-hit",
        stage,
        "cache hit ran a trace that differs from a fresh trace of this call",
        device,
        {"diff": diff},
    )


def matches_any(trace: str, others: list[str]) -> bool:
    t = normalize_trace(trace)
    return any(t == normalize_trace(o) for o in others)
