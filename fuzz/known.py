"""Registered bugs, recognised wherever they show: patterns over divergences.

A corpus case that documents a bug states in `MATCHES` what identifies that bug in a
divergence of *any* program, as a tuple of patterns. A divergence matches a pattern when
every field the pattern gives matches:

    kind     the divergence kind; `*` and `?` are wildcards ("exir.crash", "thunder.*").
             A lane that runs another lane's stack declares which of its kinds that
             lane's patterns also match (fuzz.divergence.register_kinds `same_bugs_as`):
             "exir.crash" matches an `xnnpack.crash` too, at the same stage, details and
             facts
    stage    the stage kind (call index dropped, probe kept: "call", "contract[upper]",
             "pipeline-variance[repeat]"); `*` and `?` are wildcards, brackets are
             literal; default "*"
    details  a regular expression searched in the divergence's details and in its
             data["error"] (an exception's text)
    facts    {fact: glob or [globs]}: what was observed about the run that diverged
             (fuzz/facts.py: "ops" as the lane saw them, "inputs" storage structure,
             "sizes", "dtypes", "numbers", "error_type", "at", "origin",
             "specialized", "matches_eager_with", "during", "plan"). For a list-valued
             fact every glob must match one of its elements ({"inputs": "same-tensor"},
             {"ops": ["aten.nonzero.default", "*dim_order*"]}); for a text fact the glob
             must match it ({"error_type": "IndexError"}). A divergence without the fact
             does not match.
    data     {field: value}: exact values of the divergence's data fields
             ({"control": "diverges too"}, {"needed": 1, "planned": 2}; Thunder's
             {"repaired_by": "number-rounding"}, fuzz/backends/thunder/repairs.py)
    source   a regular expression searched in the program's source. Use it only where no
             fact says the same thing, and make it specific: a regex over how a program
             happens to be rendered blankets ordinary programs and misses variants
             (tests/stacks/core/test_pattern_specificity.py measures both).

`"kind@stage"` is short for {"kind": kind, "stage": stage}.

A pattern must say what tells its bug apart from other bugs of the same kind: besides the
kind it gives `details`, `source` or `data`, or a stage with a probe kind ("[...]").
A pattern of a kind alone (or "kind@call") would count every new bug of that kind as
known, which is the worst thing a registry can do: `parse_pattern` refuses it.

This module is part of the torch-free core (the corpus index and case loader use it).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from collections.abc import Mapping
from typing import Any

from fuzz.divergence import KINDS, pattern_kinds, stage_kind
from fuzz.errors import FuzzError

FIELDS = ("kind", "stage", "details", "source", "data", "facts")
FACTS = (
    "ops",
    "inputs",
    "sizes",
    "dtypes",
    "numbers",
    "error_type",
    "at",
    "origin",
    "dtype_origin",
    "specialized",
    "matches_eager_with",
    "during",
    "plan",
)  # fuzz/facts.py


def glob(text: str, pattern: str) -> bool:
    """fnmatch with `*` and `?` only: brackets in a stage ("contract[upper]") are literal."""
    return fnmatch.fnmatchcase(text, pattern.replace("[", "[[]"))


def fact_matches(observed: Any, globs: tuple[str, ...]) -> bool:
    """A list-valued fact: every glob matches one of its elements; a text fact: every
    glob matches it. A missing fact matches nothing."""
    if observed is None:
        return False
    values = [str(v) for v in observed] if isinstance(observed, (list, tuple)) else [str(observed)]
    return all(any(glob(v, g) for v in values) for g in globs)


class PatternError(FuzzError, ValueError):
    """A MATCHES entry that cannot be used; the message says what is wrong with it."""


@dataclasses.dataclass(frozen=True)
class BugPattern:
    kind: str
    stage: str = "*"
    details: str | None = None
    source: str | None = None
    data: tuple[tuple[str, Any], ...] = ()
    facts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def matches(self, divergence: Mapping[str, Any], source: str = "") -> bool:
        """Whether `divergence` (a Divergence.to_json() dict) of a program with `source`
        shows this bug."""
        if not any(glob(kind, self.kind) for kind in pattern_kinds(divergence["kind"])):
            return False
        if not glob(stage_kind(divergence["stage"]), self.stage):
            return False
        data = divergence.get("data") or {}
        if self.details is not None:
            text = f"{divergence.get('details', '')}\n{data.get('error', '')}"
            if not re.search(self.details, text):
                return False
        if self.source is not None and not re.search(self.source, source):
            return False
        if not all(data.get(k) == v for k, v in self.data):
            return False
        observed = data.get("facts") or {}
        return all(fact_matches(observed.get(k), globs) for k, globs in self.facts)

    def __str__(self) -> str:
        extra = [f"{k}={v!r}" for k in ("details", "source") if (v := getattr(self, k))]
        extra += [f"data[{k}]={v!r}" for k, v in self.data]
        extra += [f"facts[{k}]={list(v)!r}" for k, v in self.facts]
        return f"{self.kind}@{self.stage}" + (f" ({', '.join(extra)})" if extra else "")


def parse_pattern(entry: Any) -> BugPattern:
    """A MATCHES entry ("kind@stage" or a dict of FIELDS) as a BugPattern; PatternError
    says what is wrong."""
    if isinstance(entry, str):
        kind, _, stage = entry.partition("@")
        entry = {"kind": kind.strip(), "stage": stage.strip() or "*"}
    if not isinstance(entry, Mapping):
        raise PatternError(f"a pattern is a 'kind@stage' string or a dict, got {entry!r}")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise PatternError(f"unknown field(s) {unknown} in {dict(entry)!r}; fields: {FIELDS}")
    kind = entry.get("kind")
    if not isinstance(kind, str) or not any(glob(k, kind) for k in KINDS):
        raise PatternError(f"'kind' {kind!r} names no divergence kind (fuzz.divergence.KINDS)")
    stage = entry.get("stage", "*")
    for key in ("stage", "details", "source"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise PatternError(f"{key!r} must be a string, got {entry[key]!r}")
    for key in ("details", "source"):
        if entry.get(key) is not None:
            try:
                re.compile(entry[key])
            except re.error as e:
                raise PatternError(f"{key!r} is not a regular expression: {e}") from e
    data = entry.get("data") or {}
    if not isinstance(data, Mapping):
        raise PatternError(f"'data' must be a dict, got {data!r}")
    facts = entry.get("facts") or {}
    if not isinstance(facts, Mapping):
        raise PatternError(f"'facts' must be a dict, got {facts!r}")
    wanted = []
    for key, value in sorted(facts.items()):
        globs = (value,) if isinstance(value, str) else tuple(value)
        if key not in FACTS or not globs or not all(isinstance(g, str) for g in globs):
            raise PatternError(
                f"facts[{key!r}] = {value!r}: facts are {FACTS}, each a glob or a list of globs"
            )
        wanted.append((key, globs))
    pattern = BugPattern(
        kind,
        stage,
        entry.get("details"),
        entry.get("source"),
        tuple(sorted(data.items())),
        tuple(wanted),
    )
    if not (pattern.details or pattern.source or pattern.data or pattern.facts or "[" in stage):
        raise PatternError(
            f"{pattern} would count every {kind} divergence at {stage} as known: give "
            "details, facts, source or data, or a stage with its probe kind"
        )
    return pattern
