"""Findings, and turning one into a case file: the program's source with a docstring that
says what diverges, where, and under which fixes and versions, plus a FOUND line.

A `Finding` is the best program a campaign has for one bucket (fuzz.buckets): the final
one of a finished shrink, else the smallest candidate so far. It keeps the first program
seen for its bucket (`first_source`, before shrinking) so that a finding whose shrink
ended on a registered bug ("drifted", fuzz.campaign.triage) still shows what was found.

The generated source is kept exactly as the worker ran it (so the file replays the same
thing); only its module docstring is replaced and `FOUND = (...)` appended (or replaced).
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Sequence
from typing import Any

from fuzz.divergence import KINDS, stage_kind
from fuzz.signature import Signature
from fuzz.speedups import describe as describe_speedups
from fuzz.speedups import describe_compat

SHRUNK_TEXT = {
    "yes, 1-minimal": "Hypothesis shrank it, then no single op or input could be removed "
    "and keep this divergence (1-minimal, fuzz/reduce.py).",
    "yes": "Hypothesis shrank it to this program; the 1-minimal reduction ran out of time.",
    "no (the process died on it)": "not shrunk: the worker process died on it.",
    "partly (shrink budget spent)": "partly: the shrink budget ran out; this is the "
    "smallest program found by then.",
}


@dataclasses.dataclass
class Finding:
    bucket: str
    source: str
    divergences: list[dict[str, Any]]
    final: bool
    worker: str
    crash: bool = False
    shrunk: str = ""  # yes | cut short | "" (not finished)
    ops: list[str] = dataclasses.field(default_factory=list)
    sightings: int = 1
    # the first program seen for this bucket (the explored one, before shrinking)
    first_source: str = ""
    first_divergences: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # filled by triage
    status: str = ""  # new | known | duplicate | merged | drifted | flaky | harness-bug
    path: str | None = None
    merged_into: str | None = None  # merged or duplicate: the case file filed for its bug
    absorbed: list[str] = dataclasses.field(default_factory=list)  # filed: merged buckets
    merge_reason: str = ""  # merged: which rule joined it (fuzz.campaign.triage)
    known_as: list[str] = dataclasses.field(default_factory=list)
    signatures: list[Signature] = dataclasses.field(default_factory=list)
    sig_status: dict[str, str] = dataclasses.field(default_factory=dict)  # digest -> status
    confirmation: str = ""
    stock: str = ""  # filed: the re-run on the stock stacks (fuzz.campaign.stock)

    @property
    def kind(self) -> str:
        return self.bucket.split("@", 1)[0]

    @property
    def item(self) -> tuple[str, str, str]:
        """(kind, stage kind, discriminator): the bucket's parts."""
        head, _, discriminator = self.bucket.partition("#")
        kind, _, stage = head.partition("@")
        return kind, stage, discriminator

    def shrunk_text(self) -> str:
        if self.crash:
            return "no (the process died on it)"
        if self.final and self.shrunk in ("yes", "yes, 1-minimal"):
            return self.shrunk
        return "partly (shrink budget spent)" if self.final else "partly (shrink unfinished)"

    def shrunk_sentence(self) -> str:
        return SHRUNK_TEXT.get(
            self.shrunk_text(),
            "partly: the shrink did not finish (or it was shrinking another divergence); "
            "this is the smallest program seen.",
        )

    def better_than(self, other: Finding) -> bool:
        return (self.final, -len(self.source)) > (other.final, -len(other.source))

    def to_json(self) -> dict[str, Any]:
        return {
            "item": list(self.item),
            "bucket": self.bucket,
            "status": self.status,
            "path": self.path,
            "shrunk": self.shrunk_text(),
            "worker": self.worker,
            "sightings": self.sightings,
            "ops": self.ops,
            "divergences": self.divergences,
            "known_as": self.known_as,
            "signatures": [
                {
                    "digest": s.digest,
                    "kind": s.kind,
                    "stage": s.stage,
                    "status": self.sig_status.get(s.digest, ""),
                }
                for s in self.signatures
            ],
            "confirmation": self.confirmation,
            "stock": self.stock,
            "merged_into": self.merged_into,
            "absorbed": self.absorbed,
            "merge_reason": self.merge_reason,
            # the program, when no case file holds it (known, duplicate, flaky, ...): so
            # that a finding called a registered bug can be checked against that bug
            "source": self.source if self.path is None else None,
            # the explored program, when shrinking changed it (a drifted finding shows it)
            "first_source": self.first_source if self.first_source != self.source else None,
        }


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
    speedups: dict[str, Any] | None = None,
    compat: dict[str, list[str]] | None = None,
    plugins: Sequence[str] = (),
    stock: str = "",
    isolate: bool = False,
    absorbed: Sequence[str] = (),
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
    if speedups is not None:
        lines += textwrap.wrap(f"Speedups: {describe_speedups(speedups)}.", width)
    if compat is not None:
        lines += textwrap.wrap(f"Compat shims: {describe_compat(compat)}.", width)
    if plugins:
        lines += textwrap.wrap(f"Found under plugins: {', '.join(plugins)}.", width)
    if stock:
        lines += textwrap.wrap(f"On the stock stacks: {stock}.", width)
    lines += textwrap.wrap(
        "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", width
    )
    lines += textwrap.wrap("Signatures: " + ", ".join(signatures) + ".", width)
    if absorbed:
        lines += textwrap.wrap(
            f"Also found as {len(absorbed)} other bucket(s), merged into this case as one "
            "root cause (fuzz/campaign/triage.py): " + ", ".join(absorbed) + ".",
            width,
            break_long_words=False,
            break_on_hyphens=False,
        )
    flags = f"--fixes {switch}"
    if speedups is not None:
        flags += f" --speedups {speedups.get('switch', 'on')}"
    flags += "".join(f" --plugin {p}" for p in plugins)
    lines.append(
        f"Replay: python -m fuzz replay THIS_FILE {flags}"
        + (" --isolate  (it kills the process that runs it)" if isolate else "")
    )
    return "\n".join(lines)


def render_finding(source: str, divergences: Sequence[dict[str, Any]], **kw) -> str:
    """The case file of a finding; a crash that killed its process also says ISOLATE."""
    text = with_found(
        replace_docstring(source, describe(divergences, **kw)), found_labels(divergences)
    )
    return text + "ISOLATE = True\n" if kw.get("isolate") else text


def distinct_bugs(
    findings: Sequence[Finding], programs_per_bucket: dict[str, int]
) -> list[dict[str, Any]]:
    """report.json "distinct_bugs": one entry per filed case file (a new bug after
    merging, fuzz.campaign.triage), with the buckets it absorbed and every program that
    showed it (the filed one first)."""
    out = []
    for rep in sorted((f for f in findings if f.status == "new"), key=lambda f: f.bucket):
        members = [rep] + [f for f in findings if f.merged_into and f.merged_into == rep.path]
        out.append(
            {
                "path": rep.path,
                "kind": rep.kind,
                "bucket": rep.bucket,
                "absorbed": rep.absorbed,
                "findings": len(members),
                "explored_programs": sum(programs_per_bucket.get(f.bucket, 0) for f in members),
                "programs": [
                    {
                        "bucket": f.bucket,
                        "status": f.status,
                        "path": f.path or f.merged_into,
                        "merge_reason": f.merge_reason,
                    }
                    for f in members
                ],
            }
        )
    return out
