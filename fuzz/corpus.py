"""The corpus: case files in a directory, behind a tiny Hypothesis-database-like interface.

    corpus = DirectoryCorpus("corpus")
    name = corpus.save("thunder_unsound_hit", source)   # the name actually used
    corpus.fetch(name)  -> source or None
    corpus.keys()       -> sorted case names (file stems)
    corpus.delete(name)
    ReadOnlyCorpus(corpus)   # same reads; save/delete raise ReadOnlyCorpusError

A case is the file `<name>.py` (the format in fuzz/case.py). Writes are atomic and never
overwrite: the source is written to a temporary file in the same directory, flushed and
fsynced, then hard-linked (`os.link`, which fails if the target exists) to its final
name; on a clash the next free name `<name>_2`, `<name>_3`, ... is used. Where hard
links are not supported the final file is created with O_CREAT | O_EXCL instead (still
never overwriting; a reader may then briefly see a partial file). So two workers, two
campaigns or a campaign and a person can write into the same directory safely.

`CorpusIndex` is what triage needs from a corpus: the signatures of every case (from its
FOUND and EXPECT, see fuzz.signature) and the bug patterns of its MATCHES (fuzz.known).
A divergence is *known* when one of its signatures is there (a corpus case with the same
normalized program EXPECTs its kind: EXPECT has no stage, so any stage matches), or when
a registered pattern matches it on whatever program it shows. A kind in EXPECT does not
make that kind known for every program: `thunder.wrong-result` in one known-bug case must
not hide all other wrong results. The kinds EXPECTed anywhere are kept too
(`expect_kinds`), for reports. The index reads files with `ast` only, so building it runs
no case code. Neither do `pattern_variants` (`<corpus>/variants/<case>/<form>.py`: other
programs showing a case's bug, for tests/stacks/core/test_pattern_variants.py; no cases).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from fuzz.case import METADATA, bug_patterns, case_metadata
from fuzz.divergence import KINDS, lane_of, stage_kind
from fuzz.errors import FuzzError
from fuzz.known import BugPattern
from fuzz.signature import Signature, normalize_source, signatures_of_source

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ReadOnlyCorpusError(FuzzError, PermissionError):
    """A write was attempted through a ReadOnlyCorpus."""


def safe_name(text: str) -> str:
    """A case name (a Python identifier, so the file stays importable) made from `text`."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "case"
    if name[0].isdigit():
        name = "case_" + name
    return name


def is_case_file(path: Path) -> bool:
    return path.suffix == ".py" and not path.name.startswith(("_", ".")) and path.is_file()


class DirectoryCorpus:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"DirectoryCorpus({str(self.path)!r})"

    def _file(self, name: str) -> Path:
        if not _NAME.fullmatch(name):
            raise ValueError(f"invalid case name {name!r}: use letters, digits and _")
        return self.path / f"{name}.py"

    def keys(self) -> list[str]:
        if not self.path.is_dir():
            return []
        return sorted(p.stem for p in self.path.iterdir() if is_case_file(p))

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __contains__(self, name: str) -> bool:
        return self._file(name).is_file()

    def paths(self) -> list[Path]:
        return [self.path / f"{k}.py" for k in self.keys()]

    def fetch(self, name: str) -> str | None:
        try:
            return self._file(name).read_text()
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        try:
            self._file(name).unlink()
        except FileNotFoundError:
            pass

    def save(self, name: str, source: str) -> str:
        """Write `source` as a new case; returns the name used (`name` or `name_N`)."""
        name = safe_name(name)
        self._file(name)  # validates
        self.path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".py", dir=self.path)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(source)
                f.flush()
                os.fsync(f.fileno())
            for candidate in self._candidates(name):
                target = self._file(candidate)
                try:
                    os.link(tmp, target)
                    return candidate
                except FileExistsError:
                    continue
                except OSError:
                    # No hard links here (some filesystems): exclusive create instead.
                    try:
                        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    except FileExistsError:
                        continue
                    with os.fdopen(out, "w") as f:
                        f.write(source)
                        f.flush()
                        os.fsync(f.fileno())
                    return candidate
            raise RuntimeError("unreachable")
        finally:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass

    @staticmethod
    def _candidates(name: str) -> Iterator[str]:
        yield name
        i = 2
        while True:
            yield f"{name}_{i}"
            i += 1


class ReadOnlyCorpus:
    """Reads pass through; writes raise (a corpus must never lose a case silently)."""

    def __init__(self, corpus: DirectoryCorpus):
        self._corpus = corpus
        self.path = corpus.path

    def __repr__(self) -> str:
        return f"ReadOnlyCorpus({self._corpus!r})"

    def keys(self) -> list[str]:
        return self._corpus.keys()

    def __iter__(self):
        return iter(self.keys())

    def __contains__(self, name: str) -> bool:
        return name in self._corpus

    def paths(self) -> list[Path]:
        return self._corpus.paths()

    def fetch(self, name: str) -> str | None:
        return self._corpus.fetch(name)

    def save(self, name: str, source: str) -> str:
        raise ReadOnlyCorpusError(f"{self.path} is read-only: cannot save {name!r}")

    def delete(self, name: str) -> None:
        raise ReadOnlyCorpusError(f"{self.path} is read-only: cannot delete {name!r}")


@dataclasses.dataclass
class CorpusIndex:
    """What the corpus knows: which divergences are registered bugs, and where.

    A divergence of a program is *known* when
      * a case has its signature (kind, stage kind, normalized program), from FOUND, or
        from EXPECT for the same program at any stage; or
      * a case's MATCHES pattern (fuzz/known.py) matches it, on any program.
    """

    signatures: dict[Signature, str] = dataclasses.field(default_factory=dict)
    expect_kinds: dict[str, str] = dataclasses.field(default_factory=dict)  # kind -> case
    patterns: list[tuple[BugPattern, str]] = dataclasses.field(default_factory=list)
    _normalized: dict[str, str] = dataclasses.field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, corpora: Iterable[DirectoryCorpus | ReadOnlyCorpus]) -> CorpusIndex:
        index = cls()
        for corpus in corpora:
            for name in corpus.keys():
                source = corpus.fetch(name)
                if source is not None:
                    index.add(f"{corpus.path}/{name}.py", source)
        return index

    def add(self, where: str, source: str) -> None:
        for sig in signatures_of_source(source):
            self.signatures.setdefault(sig, where)
        meta = case_metadata(source)
        for kind in meta.get("EXPECT", ()) or ():
            if isinstance(kind, str):
                self.expect_kinds.setdefault(kind, where)
        self.patterns += [(p, where) for p in bug_patterns(meta)]

    def known(self, sig: Signature) -> str | None:
        """The case that has `sig` (or EXPECTs its kind for the same program), or None."""
        if sig in self.signatures:
            return self.signatures[sig]
        return self.signatures.get(sig._replace(stage="*"))

    def known_as(self, divergence: Mapping[str, Any], source: str) -> list[str]:
        """Every case whose registered bug `divergence` (Divergence.to_json()) of the
        program `source` shows: by signature or by MATCHES pattern. Empty: new."""
        if source not in self._normalized:
            self._normalized[source] = normalize_source(source)
        sig = Signature(
            divergence["kind"],
            lane_of(divergence["kind"]),
            stage_kind(divergence["stage"]),
            self._normalized[source],
        )
        found = [w for w in (self.known(sig),) if w is not None]
        found += [w for p, w in self.patterns if p.matches(divergence, source)]
        return list(dict.fromkeys(found))


def expand_paths(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Files as given; directories expanded to their case files (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.iterdir() if is_case_file(q)))
        else:
            out.append(p)
    return out


# ---- upstream status: one row per root cause (docs/bugs.md, the repro index) ------------

_KNOWN_PREFIX = re.compile(r"^(Known upstream [^:]*|Known limitation[^:]*|Seed bug[^:]*):\s*")
_ISSUE_LINK = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(issues|pull)/(\d+)")


def summary(doc: str) -> str:
    """A docstring's first paragraph on one line, without the "Known upstream bug (...):"
    label the corpus gives its cases."""
    first = " ".join((doc or "").strip().split("\n\n")[0].split())
    return _KNOWN_PREFIX.sub("", first)


def short_link(url: str) -> str:
    """`owner/repo#N` for a GitHub issue or pull request link, else the link."""
    m = _ISSUE_LINK.search(url)
    return f"{m.group(1)}#{m.group(3)}" if m else url


def upstream_status(meta: Mapping[str, Any]) -> str:
    """What upstream knows of a case's bug, from its metadata: "fixed in <release>",
    "limitation", "reported owner/repo#N", or "unreported"."""
    if meta.get("FIXED_IN"):
        return f"fixed in {meta['FIXED_IN']}"
    link = meta.get("UPSTREAM")
    if meta.get("CLASS") == "limitation":
        return "limitation" + (f" ({short_link(link)})" if link else "")
    return f"reported {short_link(link)}" if link else "unreported"


@dataclasses.dataclass
class RootCause:
    """One upstream bug: its primary case, the cases folded into it (VARIANT_OF), the
    primary's metadata and title."""

    name: str
    variants: list[str]
    meta: dict[str, Any]
    title: str

    @property
    def status(self) -> str:
        return upstream_status(self.meta)


def root_causes(paths: Iterable[Path]) -> list[RootCause]:
    """The root causes of the case files `paths`, each with its variants folded in (a
    VARIANT_OF naming a case not among them makes the case its own root cause)."""
    metas: dict[str, dict[str, Any]] = {}
    docs: dict[str, str] = {}
    for path in paths:
        source = Path(path).read_text()
        metas[Path(path).stem] = case_metadata(source)
        try:
            docs[Path(path).stem] = ast.get_docstring(ast.parse(source)) or ""
        except SyntaxError:
            docs[Path(path).stem] = ""

    def root_of(name: str) -> str:
        seen = {name}
        while (up := metas[name].get("VARIANT_OF")) in metas and up not in seen:
            name = up
            seen.add(name)
        return name

    out: dict[str, RootCause] = {}
    for name in sorted(metas):
        root = root_of(name)
        if root == name:
            out[name] = RootCause(
                name, [], metas[name], metas[name].get("TITLE") or summary(docs[name])
            )
    for name in sorted(metas):
        if (root := root_of(name)) != name:
            out[root].variants.append(name)
    return sorted(out.values(), key=lambda r: r.name)


# ---- pattern variants: other programs that show a registered bug ------------------------

VARIANTS_DIR = "variants"  # corpus/variants/<case>/<form>.py
_FORM = re.compile(r"(?!test)[a-z0-9][a-z0-9_-]*")


class VariantError(FuzzError):
    """A pattern-variant file that cannot be used; the message names the file and why."""


@dataclasses.dataclass(frozen=True)
class Variant:
    """Another form of corpus case `case`'s bug, which its MATCHES must recognise on `lane`."""

    case: str  # its folder's name
    form: str  # its file's stem
    lane: str
    isolate: bool  # ISOLATE: it kills the process that runs it
    source: str  # the program: the file without its docstring
    path: Path

    @property
    def id(self) -> str:
        return f"{self.case}:{self.form}"


def load_variant(path: str | os.PathLike) -> Variant:
    """Read `<corpus>/variants/<case>/<form>.py` with `ast` (nothing runs): a case file
    with a docstring, `program`, `calls()`, LANES naming one lane, and no metadata but
    DIMS, DEVICES and ISOLATE (else VariantError)."""
    path = Path(path)
    corpus, case, form = path.parent.parent.parent, path.parent.name, path.stem
    case_file, lanes = corpus / f"{case}.py", sorted({lane_of(k) for k in KINDS})

    def bad(problem: str) -> VariantError:
        return VariantError(f"{path}: {problem}")

    if path.suffix != ".py" or path.parent.parent.name != VARIANTS_DIR or not path.is_file():
        raise bad(f"a variant is a file <corpus>/{VARIANTS_DIR}/<case>/<form>.py")
    if not is_case_file(case_file) or not bug_patterns(case_metadata(case_file.read_text())):
        raise bad(f"its folder names no corpus case with MATCHES ({case_file})")
    if not _FORM.fullmatch(form):
        raise bad("its name must be lowercase letters, digits, - and _ (not test*)")
    try:
        tree = ast.parse(source := path.read_text())
    except SyntaxError as e:
        raise bad(f"syntax error at line {e.lineno}: {e.msg}") from e
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if not ast.get_docstring(tree) or not {"program", "calls"} <= defined:
        raise bad("it needs a docstring (the form it shows), `program` and `calls`")
    meta = case_metadata(source)
    if not (isinstance(got := meta.get("LANES"), tuple) and len(got) == 1 and got[0] in lanes):
        raise bad(f"LANES must be a literal tuple of one lane of {lanes}, got {got!r}")
    if extra := sorted(set(meta) - {"LANES", "DIMS", "DEVICES", "ISOLATE"}):
        raise bad(f"{', '.join(extra)}: a corpus case's field; a variant registers nothing")
    for key, value in meta.items():
        if (problem := METADATA[key].check(value)) is not None:
            raise bad(f"{key} {problem}, got {value!r}")
    body = "\n".join(source.splitlines()[tree.body[0].end_lineno :]).lstrip("\n") + "\n"
    return Variant(case, form, meta["LANES"][0], meta.get("ISOLATE") is True, body, path)


def pattern_variants(corpus_dir: str | os.PathLike) -> list[Variant]:
    """Every variant under `corpus_dir/variants/`, by case and form ([] without any)."""
    root, out = Path(corpus_dir) / VARIANTS_DIR, []
    hidden = (".", "_")  # __pycache__, editors' files
    for folder in sorted(p for p in root.glob("*") if not p.name.startswith(hidden)):
        if not folder.is_dir():
            raise VariantError(f"{folder}: not a folder <case>/ of variants")
        out += [load_variant(p) for p in sorted(folder.iterdir()) if not p.name.startswith(hidden)]
    return out
