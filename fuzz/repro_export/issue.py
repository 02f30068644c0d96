"""ISSUE.md: a case written up for the upstream tracker (title, versions, the repro,
expected vs actual, the root cause from the case's docstring, related links)."""

from __future__ import annotations

import re

from fuzz.case import Case

_PREFIX = re.compile(r"^Known upstream [^:]*:\s*|^Seed bug[^:]*:\s*")
STACKS = {"exir": "ExecuTorch / torch.export", "thunder": "lightning-thunder"}


def title(case: Case, lane: str) -> str:
    first = case.doc.split("\n\n")[0].replace("\n", " ").strip() or case.name
    first = _PREFIX.sub("", first).rstrip(".")
    return f"[{STACKS[lane]}] {first[:1].upper()}{first[1:]}"


def links(case: Case) -> list[str]:
    found = [case.upstream] if case.upstream else []
    for url in re.findall(r"https?://[^\s)>\]]+", case.doc):
        found.append(url.rstrip(".,;"))
    for repo, number in re.findall(r"([\w.-]+/[\w.-]+)#(\d+)", case.doc):
        found.append(f"https://github.com/{repo}/issues/{number}")
    return list(dict.fromkeys(found))


def write_issue(
    case: Case, lane: str, script: str, versions: dict[str, str], expected: str, actual: str | None
) -> str:
    body = case.doc.split("\n\n", 1)[1].strip() if "\n\n" in case.doc else ""
    related = links(case)
    lines = [
        f"# {title(case, lane)}",
        "",
        "## Versions",
        "",
        *[f"- {name} {version}" for name, version in versions.items()],
        "",
        "## Repro",
        "",
        "Save as `repro.py` and run `python -I repro.py` (only torch, "
        f"{'executorch' if lane == 'exir' else 'lightning-thunder'} and the standard "
        "library are imported). It exits 1 and prints `DIVERGES: ...` when the problem "
        "reproduces, 0 and `OK: ...` when it does not.",
        "",
        "```python",
        script.rstrip(),
        "```",
        "",
        "## Expected",
        "",
        expected,
        "",
        "## Actual",
        "",
        "```",
        (actual or "(not run at export: run the script)").rstrip(),
        "```",
        "",
        "## Root cause",
        "",
        body or "(not analysed)",
        "",
        "## Related",
        "",
        *([f"- {url}" for url in related] or ["- no upstream report found"]),
        "",
        f"Found by differential fuzzing (pt2-difffuzz, case `{case.name}`).",
        "",
    ]
    return "\n".join(lines)
