"""Registered bugs, recognised wherever they show: patterns over divergences.

A corpus case that documents a bug states in `MATCHES` what identifies that bug in a
divergence of *any* program, as a tuple of patterns. A divergence matches a pattern when
every field the pattern gives matches:

    kind     the divergence kind; `*` and `?` are wildcards ("exir.crash", "thunder.*")
    stage    the stage kind (call index dropped, probe kept: "call", "contract[upper]",
             "pipeline-variance[repeat]"); `*` and `?` are wildcards, brackets are
             literal; default "*"
    details  a regular expression searched in the divergence's details and in its
             data["error"] (an exception's text)
    source   a regular expression searched in the program's source: the ops involved
             (r"torch\\.nonzero\\(.*\\)\\.to\\(")
    data     {field: value}: exact values of the divergence's data fields
             ({"control": "diverges too"}, {"needed": 1, "planned": 2})

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

from fuzz.divergence import KINDS, stage_kind

FIELDS = ("kind", "stage", "details", "source", "data")


def glob(text: str, pattern: str) -> bool:
    """fnmatch with `*` and `?` only: brackets in a stage ("contract[upper]") are literal."""
    return fnmatch.fnmatchcase(text, pattern.replace("[", "[[]"))


class PatternError(ValueError):
    """A MATCHES entry that cannot be used; the message says what is wrong with it."""


@dataclasses.dataclass(frozen=True)
class BugPattern:
    kind: str
    stage: str = "*"
    details: str | None = None
    source: str | None = None
    data: tuple[tuple[str, Any], ...] = ()

    def matches(self, divergence: Mapping[str, Any], source: str = "") -> bool:
        """Whether `divergence` (a Divergence.to_json() dict) of a program with `source`
        shows this bug."""
        if not glob(divergence["kind"], self.kind):
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
        return all(data.get(k) == v for k, v in self.data)

    def __str__(self) -> str:
        extra = [f"{k}={v!r}" for k in ("details", "source") if (v := getattr(self, k))]
        extra += [f"data[{k}]={v!r}" for k, v in self.data]
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
        raise PatternError(f"'kind' {kind!r} names no divergence kind (fuzz/divergence.py)")
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
    pattern = BugPattern(
        kind, stage, entry.get("details"), entry.get("source"), tuple(sorted(data.items()))
    )
    if not (pattern.details or pattern.source or pattern.data or "[" in pattern.stage):
        raise PatternError(
            f"{pattern} would count every {kind} divergence at {stage} as known: give "
            "details, source or data, or a stage with its probe kind"
        )
    return pattern
