"""Turning a finding into a case file: the program's source with a docstring that says
what diverges, where, and under which fixes and versions, plus a FOUND line.

The generated source is kept exactly as the worker ran it (so the file replays the same
thing); only its module docstring is replaced and `FOUND = (...)` appended (or replaced).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from typing import Any

from fuzz.divergence import KINDS
from fuzz.signature import stage_kind


def _doc_safe(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def replace_docstring(source: str, doc: str) -> str:
    """`source` with its module docstring replaced by `doc` (or `doc` prepended)."""
    body = '"""' + _doc_safe(doc.strip()) + '\n"""\n'
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return body + "\n" + source
    first = tree.body[0] if tree.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        lines = source.splitlines(keepends=True)
        rest = "".join(lines[first.end_lineno :])
        return body + rest
    return body + "\n" + source


def with_found(source: str, labels: Sequence[str]) -> str:
    """Append `FOUND = (...)` (dropping an existing FOUND line)."""
    kept = [ln for ln in source.rstrip("\n").splitlines() if not ln.startswith("FOUND = ")]
    return "\n".join(kept) + f"\nFOUND = {tuple(dict.fromkeys(labels))!r}\n"


def found_labels(divergences: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(f"{d['kind']}@{stage_kind(d['stage'])}" for d in divergences))


def describe(
    divergences: Sequence[dict[str, Any]],
    *,
    how: str,
    fixes: dict[str, str],
    versions: dict[str, str | None],
    shrunk: str,
    signatures: Sequence[str],
    switch: str = "on",
    isolate: bool = False,
    width: int = 88,
) -> str:
    """The docstring of a found case."""
    first = divergences[0]
    head = f"{first['kind']} at {first['stage']} on {first.get('device', 'cpu')}"
    lines = [head, ""]
    lines.append("What diverges (confirmed by re-running):")
    for d in divergences:
        details = " ".join(str(d["details"]).split())
        if len(details) > 400:
            details = details[:400] + " ..."
        control = d.get("data", {}).get("control")
        extra = f" [control: {control}]" if control else ""
        lines += textwrap.wrap(
            f"- {d['kind']} at {d['stage']} on {d.get('device', 'cpu')}: {details}{extra}",
            width,
            subsequent_indent="  ",
        )
    lines.append("")
    lines.append("Why it matters:")
    for kind in dict.fromkeys(d["kind"] for d in divergences):
        lines += textwrap.wrap(f"- {kind}: {KINDS.get(kind, '?')}", width, subsequent_indent="  ")
    lines.append("")
    lines += textwrap.wrap(how, width)
    lines += textwrap.wrap(f"Shrinking: {shrunk}", width)
    active = ", ".join(f"{k} ({v})" for k, v in sorted(fixes.items())) or "none"
    lines += textwrap.wrap(f"Fixes active: {active}.", width)
    lines += textwrap.wrap(
        "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", width
    )
    lines += textwrap.wrap("Signatures: " + ", ".join(signatures) + ".", width)
    lines.append(
        f"Replay: python -m fuzz replay THIS_FILE --fixes {switch}"
        + (" --isolate  (it kills the process that runs it)" if isolate else "")
    )
    return "\n".join(lines)


def render_finding(source: str, divergences: Sequence[dict[str, Any]], **kw) -> str:
    return with_found(
        replace_docstring(source, describe(divergences, **kw)), found_labels(divergences)
    )
