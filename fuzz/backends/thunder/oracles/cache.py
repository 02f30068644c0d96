"""Cache oracles for Thunder: unsound hits and missed legal hits, by trace comparison.

A cache hit is sound when the traces it ran are the ones Thunder would build for these
inputs from scratch. We compare the cached entry's initial computation trace *and* its
final execution trace with a fresh jit's, after normalizing away only what legitimately
differs between two traces of the same program:

* proxy names (tensors `t15`, numbers `i3`/`f30`, and names Thunder took from the
  program's variables): every name the trace binds (parameters, assignment targets) is
  renumbered in order of first appearance; nothing else is renamed, so `dtypes.float32`
  vs `dtypes.float64`, `prims.log2` vs `prims.log10` and `prims.add` vs `prims.sub`
  stay different, nor is any type: a number proxy may be named `i64` or `f32`, and the
  dtype in `cpu i64 rank=1` is not that proxy;
* traced values: type annotations keep device, dtype and rank (`cpu f32 rank=2`) or the
  number type (`int`), never sizes or values; source-line comments go.

Scalar computations stay (renamed): `i5 = prims.eq(i1, 1)` is how a shape decision shows
in a trace, and a changed scalar computation feeding a tensor op is a different program.
A hit whose fresh trace raises is unsound too: the cache ran a trace where a fresh trace
of the same call does not exist. A hit whose traces differ is a divergence even when the
numbers match (on CPU the torch executor re-broadcasts at run time, hiding a wrong trace).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from fuzz.divergence import Divergence

_SKIP = ("import ", "from ", "@", "Constructed by")
_SOURCE_LINE = re.compile(r"^\S+:\d+:")  # `/tmp/x.py:6:  v = x0 + x1`
_PARAMS = re.compile(r"^def \w+\((.*)\):")
_TARGETS = re.compile(r"^\(?([\w, ]+?)\)?\s*=\s*\S")  # `t15 = ...`, `(i0, i1) = ...`
_ANNOTATED = re.compile(r'^(.*?)\s*#\s*(\w+): "([^"]*)"$')  # `code  # name: "type"`
_DECLARATION = re.compile(r'^(\w+): "([^"]*)"$')  # `x0: "cpu f32[...]"` (a comment line)
_TENSOR_TYPE = re.compile(r"^(\S+) (\w+)\[(.*)\]$")
_TYPE_SEP = " :: "  # between a normalized line's code and its value's type


def _rank(shape: str) -> int:
    """Top-level entries of a printed shape (`[IntegerProxy ...], [..]` or `3, 4`)."""
    if not shape.strip():
        return 0
    depth, commas = 0, 0
    for ch in shape:
        depth += ch == "["
        depth -= ch == "]"
        commas += ch == "," and depth == 0
    return commas + 1


def _type_of(printed: str) -> str:
    """`cpu f32[[...], [...]]` -> `cpu f32 rank=2`; `int 2` -> `int`; `bool True` -> `bool`."""
    if m := _TENSOR_TYPE.match(printed):
        return f"{m.group(1)} {m.group(2)} rank={_rank(m.group(3))}"
    return printed.split(" ", 1)[0]


def _lines(text: str) -> list[str]:
    out = []
    for raw in str(text).splitlines():
        line = raw.strip().lstrip("#").strip()
        if not line or line.startswith(_SKIP) or _SOURCE_LINE.match(line):
            continue
        if m := _DECLARATION.match(line):
            out.append(f"{m.group(1)}{_TYPE_SEP}{_type_of(m.group(2))}")
        elif m := _ANNOTATED.match(line):
            out.append(f"{m.group(1)}{_TYPE_SEP}{_type_of(m.group(3))}")
        else:
            out.append(line)
    return out


def _bound_names(lines: list[str]) -> list[str]:
    names: list[str] = []
    for line in lines:
        if m := _PARAMS.match(line):
            names += [
                p.strip().split(":")[0].split("=")[0].strip("*") for p in m.group(1).split(",")
            ]
        elif not line.startswith(("return", "def ")) and (m := _TARGETS.match(line)):
            names += [n.strip() for n in m.group(1).split(",")]
    return [n for n in dict.fromkeys(names) if n.isidentifier()]


def normalize_trace(text: str) -> str:
    """The trace with proxy names renumbered and traced values dropped (module docstring)."""
    lines = _lines(text)
    bound = _bound_names(lines)
    if not bound:
        return "\n".join(lines)
    token = re.compile(
        r"(?<![\w.])(" + "|".join(map(re.escape, sorted(bound, key=len, reverse=True))) + r")\b"
    )
    names: dict[str, str] = {}

    def renamed(line: str) -> str:
        # Only the code is renamed, never the type `_lines` appended after " :: ": Thunder
        # names number proxies `i64`, `f32`, ... like the dtypes in `cpu i64 rank=1`.
        code, sep, type_ = line.partition(_TYPE_SEP)
        code = token.sub(lambda m: names.setdefault(m.group(1), f"%{len(names)}"), code)
        return code + sep + type_

    return "\n".join(renamed(line) for line in lines)


TRACE_NAMES = ("initial", "execution")


def unsound_hit(
    cached: str | Sequence[str],
    fresh: str | Sequence[str],
    stage: str,
    device: str,
    lane: str = "thunder",
) -> Divergence | None:
    """A divergence (of `lane`, a lane running Thunder's cache) when a cached trace (the
    initial computation trace, then the final execution trace, when both are given)
    differs from the fresh trace of the same call."""
    cached = (cached,) if isinstance(cached, str) else tuple(cached)
    fresh = (fresh,) if isinstance(fresh, str) else tuple(fresh)
    for name, a_text, b_text in zip(TRACE_NAMES, cached, fresh):
        a, b = normalize_trace(a_text), normalize_trace(b_text)
        if a == b:
            continue
        diff = "\n".join(
            difflib.unified_diff(
                a.splitlines(), b.splitlines(), "cached", "fresh", lineterm="", n=1
            )
        )
        return Divergence(
            f"{lane}.unsound-hit",
            stage,
            f"cache hit ran a cached {name} trace that differs from a fresh trace of this call",
            device,
            {"diff": diff, "trace": name},
        )
    return None


def unsound_hit_without_fresh_trace(
    error: str, stage: str, device: str, lane: str = "thunder"
) -> Divergence:
    """A hit on a call that a fresh jit cannot trace: the cache ran a trace that should not
    exist for these inputs."""
    return Divergence(
        f"{lane}.unsound-hit",
        stage,
        f"cache hit ran a cached trace, but a fresh trace of this call raises {error[:300]}",
        device,
        {"fresh_error": error[:500], "trace": "fresh-raised"},
    )


def matches_any(trace: str, others: list[str]) -> bool:
    t = normalize_trace(trace)
    return any(t == normalize_trace(o) for o in others)
