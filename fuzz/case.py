"""A case: one program plus the calls that exercise it, loaded from Python source.

Generated programs and hand-written corpus files share this one format, so what the
harness runs is always exactly the source it reports. A case file defines

    program           the function (or torch.nn.Module instance) under test
    calls()           a list of argument tuples, called in order on one compiled object

and optionally the metadata in `METADATA` below (the one schema: the loader, the
signatures and the corpus index all read it from here). This module imports no torch: a
case file imports what it needs itself when it is loaded.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fuzz.divergence import KINDS
from fuzz.errors import FuzzError, error_text
from fuzz.known import BugPattern, PatternError, parse_pattern

_counter = itertools.count()


class CaseError(FuzzError):
    """A case file that cannot be used; the message names the file and the problem."""


# ---- the metadata schema ---------------------------------------------------------------
# Each check returns what is wrong with a value (None when it is fine).


def _strings(value: Any) -> str | None:
    ok = isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)
    return None if ok else "must be a tuple of strings"


def _kinds(value: Any) -> str | None:
    if (problem := _strings(value)) is not None:
        return problem
    unknown = [k for k in value if k not in KINDS]
    return f"names unknown divergence kinds {unknown}" if unknown else None


def _patterns(value: Any) -> str | None:
    if not isinstance(value, (tuple, list)):
        return "must be a tuple of patterns"
    for entry in value:
        try:
            parse_pattern(entry)
        except PatternError as e:
            return f"entry {entry!r}: {e}"
    return None


def _dims(value: Any) -> str | None:
    ok = isinstance(value, Mapping) and all(
        isinstance(dims, Mapping)
        and all(isinstance(lo_hi, (tuple, list)) and len(lo_hi) == 2 for lo_hi in dims.values())
        for dims in value.values()
    )
    return None if ok else "must be {input name: {dim: (min, max)}}"


# What a registered case is (CLASS): the report counts them apart, docs/bugs.md lists them.
CLASSES = {
    "bug": "the stack computes, plans or refuses something it must not (report upstream)",
    "limitation": "a refusal or restriction upstream keeps on purpose, or a run outside "
    "the pipeline the stack supports (documented, not a bug to file)",
    "plan-quality": "correct results, but a wasteful plan (e.g. more memory than needed)",
}


def _class(value: Any) -> str | None:
    return None if value in CLASSES else f"must be one of {sorted(CLASSES)}"


def _versions(value: Any) -> str | None:
    ok = isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )
    return None if ok else 'must be {"package": "version"}'


def _optional_str(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else "must be a string or None"


def _bool(value: Any) -> str | None:
    return None if isinstance(value, bool) else "must be True or False"


def _mapping(value: Any) -> str | None:
    return None if isinstance(value, Mapping) else "must be a dict"


@dataclasses.dataclass(frozen=True)
class Field:
    meaning: str
    check: Callable[[Any], str | None]


METADATA: dict[str, Field] = {
    "LANES": Field("the lanes the case runs on (default: all)", _strings),
    "DEVICES": Field("the devices the case runs on (default: all)", _strings),
    "DIMS": Field("{input name: {dim: (min, max)}}: dynamic ranges for export", _dims),
    "EXPECT": Field("divergence kinds of a known upstream bug, with every fix on", _kinds),
    "UPSTREAM": Field(
        "the link to the upstream report (or None, saying what was searched)", _optional_str
    ),
    "MATCHES": Field("patterns that recognise the bug on any program (fuzz/known.py)", _patterns),
    "VERSIONS": Field(
        '{"package": "version"} the EXPECT was registered on; on others a mismatch is '
        "reported, not failed (Case.version_drift)",
        _versions,
    ),
    "CLASS": Field(
        'what a registered case is: "bug", "limitation" or "plan-quality" (CLASSES)', _class
    ),
    "FOUND": Field(
        '"kind@stage-kind" entries the case was filed for (fuzz/signature.py)', _strings
    ),
    "META": Field("what the generator knows of the program (families, decisions, ops)", _mapping),
    "ISOLATE": Field("True: running the case kills its process; run it in a fresh one", _bool),
    "ALSO": Field(
        "corpus cases of other registered bugs the program cannot help showing too: their "
        "divergences (recognised by those cases' MATCHES) are set aside, not judged here",
        _strings,
    ),
    "TITLE": Field(
        "the issue title for the owning tracker: the wrong behaviour, in the owner's words",
        _optional_str,
    ),
    "DESCRIBE": Field(
        "the issue's description for the owner (what goes wrong, where upstream); no harness words",
        _optional_str,
    ),
    "RELATED": Field("links to related upstream reports and pull requests", _strings),
    "VARIANT_OF": Field(
        "the corpus case whose root cause this one shares (the triage index folds it there)",
        _optional_str,
    ),
    "FIXED_IN": Field(
        'where upstream fixed it: a release ("torch 2.13.0"), or "main (unreleased)"',
        _optional_str,
    ),
}


def case_metadata(source: str) -> dict[str, Any]:
    """The METADATA assignments of a case source that are literals, read with `ast`
    (nothing runs); {} when the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in METADATA:
                    try:
                        out[target.id] = ast.literal_eval(node.value)
                    except ValueError:
                        pass
    return out


def bug_patterns(meta: Mapping[str, Any]) -> tuple[BugPattern, ...]:
    """The parsed MATCHES of a case's metadata (entries that do not parse are skipped: the
    loader reports them)."""
    out = []
    for entry in meta.get("MATCHES") or ():
        try:
            out.append(parse_pattern(entry))
        except PatternError:
            continue
    return tuple(out)


# ---- cases -----------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    name: str
    source: str
    program: Callable[..., Any]
    calls: Callable[[], list[tuple]]
    path: Path | None = None
    lanes: tuple[str, ...] | None = None
    devices: tuple[str, ...] | None = None
    dims: dict[str, dict[int, tuple[int, int]]] | None = None
    expect: tuple[str, ...] = ()
    upstream: str | None = None
    bug_class: str | None = None  # CLASS: bug | limitation | plan-quality
    versions: dict[str, str] | None = None  # VERSIONS: what EXPECT was registered on
    matches: tuple[BugPattern, ...] = ()
    isolate: bool = False  # running it kills its process (ISOLATE)
    also: tuple[str, ...] = ()  # ALSO: other registered bugs the program shows too
    doc: str = ""
    module: types.ModuleType | None = dataclasses.field(default=None, repr=False)

    @property
    def where(self) -> str:
        return str(self.path) if self.path else f"<case {self.name}>"

    def input_names(self) -> list[str]:
        """Parameter names of the program (of `forward` for an nn.Module instance)."""
        return list(inspect.signature(getattr(self.program, "forward", self.program)).parameters)

    def checked_calls(self) -> list[tuple]:
        """`calls()`, checked: a non-empty list of argument tuples (else CaseError)."""
        try:
            calls = self.calls()
        except Exception as e:
            raise CaseError(f"{self.where}: calls() raised {error_text(e, None)}") from e
        if not isinstance(calls, (list, tuple)) or not all(isinstance(c, tuple) for c in calls):
            raise CaseError(f"{self.where}: calls() must return a list of argument tuples")
        if not calls:
            raise CaseError(f"{self.where}: calls() returned no calls")
        return list(calls)

    def version_drift(self) -> str | None:
        """How the installed stack differs from VERSIONS ("executorch 1.2.0, registered on
        1.5.1"), or None: the same (local suffixes such as "+cpu" ignored), or no VERSIONS.
        On another stack a registered bug may be fixed or look different: that is
        reported, not a failure of the suite."""
        from importlib import metadata

        drift = []
        for package, registered in sorted((self.versions or {}).items()):
            try:
                installed = metadata.version(package).split("+")[0]
            except metadata.PackageNotFoundError:
                installed = "not installed"
            if installed != registered.split("+")[0]:
                drift.append(f"{package} {installed}, registered on {registered}")
        return "; ".join(drift) or None

    def runs_on(self, lane: str, device: str) -> bool:
        return (self.lanes is None or lane in self.lanes) and (
            self.devices is None or device in self.devices
        )


def case_from_source(source: str, name: str, path: Path | None = None) -> Case:
    where = str(path) if path else f"<case {name}>"
    # Registered in sys.modules because torch.cond (even eagerly) compiles its branches
    # with dynamo, which looks the defining module up by name.
    module = types.ModuleType(f"fuzz_case_{name}_{next(_counter)}")
    module.__file__ = where
    sys.modules[module.__name__] = module
    try:
        code = compile(source, where, "exec")
        exec(code, module.__dict__)
    except SyntaxError as e:
        raise CaseError(f"{where}: syntax error at line {e.lineno}: {e.msg}") from e
    except Exception as e:
        raise CaseError(f"{where}: importing the case raised {error_text(e, None)}") from e
    ns = module.__dict__
    for required in ("program", "calls"):
        if required not in ns:
            raise CaseError(f"{where}: missing `{required}`")
    if not callable(ns["program"]) or not callable(ns["calls"]):
        raise CaseError(f"{where}: `program` and `calls` must be callable")
    for key, field in METADATA.items():
        if ns.get(key) is not None and (problem := field.check(ns[key])) is not None:
            raise CaseError(f"{where}: {key} {problem}, got {ns[key]!r}")
    # The bug registry and the reports read metadata without running the case
    # (case_metadata): a value they cannot read would silently register nothing. Checked
    # for case files; generated sources (no path) render their metadata with repr.
    static = case_metadata(source) if path is not None else ns
    for key in METADATA:
        if ns.get(key) is not None and key not in static:
            raise CaseError(
                f"{where}: {key} must be a literal assigned once at module level (the bug "
                "registry reads it with ast.literal_eval, without running the case)"
            )

    def strings(key: str) -> tuple[str, ...] | None:
        return tuple(ns[key]) if ns.get(key) is not None else None

    return Case(
        name=name,
        source=source,
        program=ns["program"],
        calls=ns["calls"],
        path=path,
        lanes=strings("LANES"),
        devices=strings("DEVICES"),
        dims=ns.get("DIMS"),
        expect=strings("EXPECT") or (),
        upstream=ns.get("UPSTREAM"),
        bug_class=ns.get("CLASS"),
        versions=dict(ns["VERSIONS"]) if ns.get("VERSIONS") else None,
        matches=tuple(parse_pattern(e) for e in ns.get("MATCHES") or ()),
        isolate=bool(ns.get("ISOLATE", False)),
        also=strings("ALSO") or (),
        doc=(ns.get("__doc__") or "").strip(),
        module=module,
    )


def also_patterns(case: Case) -> tuple[BugPattern, ...]:
    """The MATCHES of the cases `case.also` names, read from the case's own folder: what
    recognises the other registered bugs its program shows too (CaseError when one is not
    a case file there)."""
    out: list[BugPattern] = []
    for name in case.also:
        path = case.path.parent / f"{name}.py" if case.path is not None else None
        if path is None or not path.is_file():
            raise CaseError(f"{case.where}: ALSO names {name!r}, which is no case file beside it")
        out += bug_patterns(case_metadata(path.read_text()))
    return tuple(out)


def set_aside(case: Case, divergences: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The divergences (Divergence.to_json() dicts) that a bug `case.also` names accounts
    for: shown by the program, but registered elsewhere, so they do not decide the case."""
    patterns = also_patterns(case)
    return [d for d in divergences if any(p.matches(d, case.source) for p in patterns)]


def load_case(path: str | Path) -> Case:
    path = Path(path)
    try:
        source = path.read_text()
    except OSError as e:
        raise CaseError(f"{path}: cannot read: {e}") from e
    return case_from_source(source, path.stem, path)
