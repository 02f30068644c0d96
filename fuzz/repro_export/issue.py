"""ISSUE.md: one bug in the issue template of the tracker that owns it.

pytorch/pytorch and pytorch/executorch ask for "🐛 Describe the bug" (the description, the
code, what it prints) and "Versions" (collect_env's output); Lightning-AI/lightning-thunder
for "🐛 Bug", "To Reproduce" with a code sample, "Expected behavior", "Environment" and
"Additional context". The text is the case's `TITLE` and `DESCRIBE` (written for the
maintainers) or, for a case without them, its docstring's first paragraph; the script's
own output is the actual behaviour. An upstream report is named only where the case
links one.
"""

from __future__ import annotations

import re

from fuzz.case import Case
from fuzz.repro_export.environment import field, version, versions_block
from fuzz.repro_export.ladder import Found
from fuzz.repro_export.thunder import STAGES_OF as THUNDER_STAGES_OF

_PREFIX = re.compile(r"^(Known upstream [^:]*|Known limitation[^:]*|Seed bug[^:]*):\s*")
# Words of the harness's own that must not reach an upstream tracker.
HARNESS_WORDS = re.compile(
    r"\b(case|cases|lane|lanes|MATCHES|bucket|buckets|corpus|fuzz\w*|harness|oracle|"
    r"pt2-difffuzz)\b"
)


def harness_words(text: str) -> list[str]:
    """The harness's own words in `text`: those above, and divergence kind names."""
    from fuzz.divergence import KINDS

    found = [m.group(0) for m in HARNESS_WORDS.finditer(text)]
    return found + [k for k in KINDS if re.search(rf"\b{re.escape(k)}\b", text)]


EXPECTED = {
    "values": "Each step runs as eager does, and every call returns what eager returns"
    "{written}{tolerance}.",
    "contract": "The runtime refuses an input outside the shapes the program was exported for, "
    "as the exported program's `module()` does.",
    "bounds": "Each data-dependent output is planned within the bound the program declares.",
    "sizes": "Each output is planned at least as large as the value eager computes.",
    "overlap": "No two tensors that are live at the same time are planned into the same bytes.",
    "variance": "Running SpecPropPass once more before memory planning leaves the plan unchanged.",
    "sharing": "The outputs share memory with the same inputs as in eager.",
    "refuses": "A call that eager refuses with an error is refused with an error too, not "
    "run to a result or to the death of the process.",
    "hit": "A call served from the cache runs the trace a fresh `thunder.jit` builds for it.",
}


def title(case: Case, meta: dict) -> str:
    if meta.get("TITLE"):
        return meta["TITLE"]
    first = case.doc.split("\n\n")[0].replace("\n", " ").strip() or case.name
    first = _PREFIX.sub("", first).rstrip(".")
    return first[:1].upper() + first[1:]


def related(case: Case, meta: dict) -> list[str]:
    links = [case.upstream] if case.upstream else []
    links += list(meta.get("RELATED") or ())
    return list(dict.fromkeys(links))


def _expected(found: Found, tolerance: str) -> str:
    written = found.subject is not None and bool(found.subject.mutated)
    said = [
        EXPECTED[c].format(
            tolerance=tolerance,
            written=" (its outputs, and the inputs the program writes to)" if written else "",
        )
        for c in found.checks
        if c in EXPECTED
    ]
    if not said:
        return "Every stage succeeds, as eager does."
    return " ".join(dict.fromkeys(said))


def _tolerance(text: str) -> str:
    m = re.search(r"rtol=([\d.e-]+), atol=([\d.e-]+)", text)
    return f" (floats within rtol={m.group(1)}, atol={m.group(2)})" if m else ""


def _what_runs(found: Found, what: dict[str, str]) -> str:
    return what.get(found.stage, "")


def write_issue(case: Case, meta: dict, lane: str, found: Found, what: dict[str, str]) -> str:
    text = found.text.rstrip()
    expected = _expected(found, _tolerance(text))
    actual = (found.run.actual if found.run else "") or "(not run here)"
    how = _what_runs(found, what)
    describe = (meta.get("DESCRIBE") or "").strip()
    links = related(case, meta)
    if lane in THUNDER_STAGES_OF:  # the lanes written as Thunder scripts
        lines = [
            f"# {title(case, meta)}",
            "",
            "## 🐛 Bug",
            "",
            *([describe, ""] if describe else []),
            "### To Reproduce",
            "",
            f"Run the code sample below ({how}). It prints what eager and Thunder return "
            "and exits 1 when the problem shows.",
            "",
            "#### Code sample",
            "",
            "```python",
            text,
            "```",
            "",
            "Output:",
            "",
            "```",
            actual,
            "```",
            "",
            "### Expected behavior",
            "",
            expected,
            "",
            "### Environment",
            "",
            f"- PyTorch Version: {field('PyTorch version')}",
            f"- OS: {field('OS')}",
            "- How you installed PyTorch: pip",
            f"- Python version: {field('Python version').split(' ')[0]}",
            f"- CUDA/cuDNN version: {field('CUDA used to build PyTorch')}",
            f"- GPU models and configuration: {field('GPU models and configuration')}",
            f"- Any other relevant information: lightning-thunder {version('lightning-thunder')}",
            "",
        ]
        if links:
            lines += ["### Additional context", "", *[f"- Related: {u}" for u in links], ""]
        return "\n".join(lines)
    lines = [
        f"# {title(case, meta)}",
        "",
        "### 🐛 Describe the bug",
        "",
        *([describe, ""] if describe else []),
        f"The program below runs {how} against eager. It exits 1 when the problem shows.",
        "",
        "```python",
        text,
        "```",
        "",
        "Output:",
        "",
        "```",
        actual,
        "```",
        "",
        f"Expected: {expected}",
        "",
        *([f"Related: {', '.join(links)}", ""] if links else []),
        "### Versions",
        "",
        "```",
        versions_block(lane),
        "```",
        "",
    ]
    return "\n".join(lines)
