"""Monkeypatches as data: tables of `Patch` entries that are applied and undone exactly,
and `PatchSet`s of them gated on the upstream they were written against.

The one patching mechanism of the project. Every change to an upstream object is a
`PatchSet` of one `kind`: the fixes (fixes/, kind "fix", installed by fixes._registry),
the lanes' speedups ("speedup": fuzz/backends/thunder/speedups.py,
fuzz/backends/exir/speedups.py), the compat shim ("compat":
fixes/compat_thunder_named_tensor.py), the Thunder lane's diagnostic repairs ("repair":
fuzz/backends/thunder/repairs.py), the fault plugins ("fault": tests/faults/) and the
harness's own override of Hypothesis' literal pool ("harness": fuzz/strategies.py). A set
is named parts, each a table built when installed, each installed only where its gate
holds: the upstream source it reproduces (`upstream`: `source_digest`, sha256, of every
function it replaces or relies on; `PatchSet.install` refuses a part that replaces a
function outside it) or the package versions it was written for (`versions`); a part
that replaces no function may be `ungated` and say why. A part whose gate does not hold
is skipped, and `skipped` says why. What is installed is recorded by name (`patch_sets`,
read by fuzz/speedups.py for reports and case files) and uninstalled exactly, last part
first. State that is not an attribute or a dict entry (a cache to clear, sets of code
objects to fill) is changed by a part's `before` hook, which returns its exact undo.

The switches that choose patch sets (`--fixes`, `--speedups`) share one parser,
`parse_switch`: `on` (every name), `off` (none), or `NAME,...`.

A `Patch` names an owner (a class, a module, or a dict such as Thunder's lookaside map),
a name in it (an attribute, or a key when `item` is set), the original found there and
the replacement. `ABSENT` as the original means that the name was not there (restoring
removes it); as the replacement, that applying removes it (a method deleted from a
class). Classes and modules are read through their own `__dict__`, so what is restored
is the object that was stored there (a `staticmethod` stays a staticmethod, an inherited
attribute stays inherited), not what attribute access returned.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import inspect
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

ON = ("on", "all", "1")
OFF = ("off", "none", "0", "")


class SwitchError(ValueError):
    """A switch value that is not on, off or known names."""


def parse_switch(value: str, known: Sequence[str], what: str = "name") -> list[str]:
    """The one switch parser: `on` -> every known name, `off`/empty -> none, `a,b` ->
    those names (each checked against `known`, in the order given). There is no default
    here: the caller resolves a missing value first (fuzz/defaults.py says the defaults)."""
    if value is None:
        raise SwitchError(f"no {what} switch given")
    value = value.strip()
    if value.lower() in ON:
        return list(known)
    if value.lower() in OFF:
        return []
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SwitchError(f"unknown {what}(s) {unknown}; known: {sorted(known)}")
    return names


def installed_version(package: str) -> Version | None:
    try:
        return Version(importlib.metadata.version(package))
    except importlib.metadata.PackageNotFoundError:
        return None


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def current(owner: Any, name: Any, item: bool = False) -> Any:
    """What `owner` holds under `name` itself (not inherited), or ABSENT."""
    if item:
        return owner.get(name, ABSENT)
    return vars(owner).get(name, ABSENT)


def _put(owner: Any, name: Any, value: Any, item: bool) -> None:
    if item:
        if value is ABSENT:
            owner.pop(name, None)
        else:
            owner[name] = value
    elif value is ABSENT:
        if name in vars(owner):
            delattr(owner, name)
    else:
        setattr(owner, name, value)


@dataclasses.dataclass(frozen=True, eq=False)
class Patch:
    """One replaced (or added, or removed) attribute or dict entry."""

    owner: Any
    name: Any
    original: Any
    replacement: Any
    item: bool = False  # `owner` is a dict and `name` a key in it

    @classmethod
    def wrap(cls, owner: Any, name: Any, make: Callable[[Any], Any], *, item: bool = False):
        """The entry replacing what `owner` holds under `name` with `make(original)`."""
        original = current(owner, name, item)
        if original is ABSENT:
            raise LookupError(f"{owner!r} has no {name!r} of its own to wrap")
        return cls(owner, name, original, make(original), item)

    @classmethod
    def set(cls, owner: Any, name: Any, replacement: Any, *, item: bool = False):
        """The entry putting `replacement` under `name` (added if it was not there)."""
        return cls(owner, name, current(owner, name, item), replacement, item)

    @classmethod
    def delete(cls, owner: Any, name: Any):
        """The entry removing attribute `name` from `owner` (nothing if it is not there)."""
        return cls(owner, name, current(owner, name), ABSENT)

    def is_applied(self) -> bool:
        return current(self.owner, self.name, self.item) is self.replacement

    def is_restored(self) -> bool:
        return current(self.owner, self.name, self.item) is self.original

    @property
    def where(self) -> str:
        """`Owner.name` or `Owner['key']`: what the entry patches, for records."""
        owner = getattr(self.owner, "__qualname__", None) or getattr(
            self.owner, "__name__", type(self.owner).__name__
        )
        return f"{owner}[{self.name!r}]" if self.item else f"{owner}.{self.name}"

    def __repr__(self) -> str:
        return f"Patch({self.where})"


def apply_all(patches: Sequence[Patch]) -> None:
    """Applies every entry in order; if one fails, the ones applied are undone first."""
    done: list[Patch] = []
    try:
        for p in patches:
            _put(p.owner, p.name, p.replacement, p.item)
            done.append(p)
    except BaseException:
        restore_all(done)
        raise


def restore_all(patches: Sequence[Patch]) -> None:
    """Puts every original back, last entry first (so two entries on one name unwind)."""
    for p in reversed(patches):
        _put(p.owner, p.name, p.original, p.item)


def source_digest(*functions: Callable) -> str:
    """sha256 (first 16 hex digits) of the functions' sources, concatenated in order: the
    fingerprint a gated part checks before it replaces an upstream function."""
    text = "".join(inspect.getsource(f) for f in functions)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclasses.dataclass(frozen=True)
class Part:
    """One named part of a `PatchSet`: `table()` builds its entries when it is installed.

    Its gate is one of: `upstream()`, the upstream functions the part replaces or relies
    on (installed only when their `source_digest` is one the set's gate knows);
    `versions`, package -> version specifier (installed only when each package is there
    in such a version; the part may then replace any function); or `ungated`, why a part
    that replaces no function (it adds names, or swaps a module reference) needs no gate.
    `before()`, if given, changes state that is not in the table (called after the table
    is built, before it is applied) and returns the function that undoes it exactly.
    """

    name: str
    table: Callable[[], list[Patch]]
    upstream: Callable[[], Sequence[Callable]] | None = None
    ungated: str = ""
    versions: Mapping[str, str] | None = None
    before: Callable[[], Callable[[], None]] | None = None

    def __post_init__(self):
        gates = [self.upstream is not None, bool(self.ungated), self.versions is not None]
        if sum(gates) != 1:
            raise ValueError(
                f"part {self.name!r}: give either upstream(), versions or why it is ungated"
            )

    def version_mismatch(self) -> str | None:
        """Why the installed packages are outside `versions` (None: they are inside)."""
        for package, spec in (self.versions or {}).items():
            version = installed_version(package)
            if version is None:
                return f"{package} is not installed"
            if version not in SpecifierSet(spec):
                return f"{package} {version} is outside {spec}"
        return None


_SETS: dict[str, PatchSet] = {}


def patch_sets(kind: str | None = None) -> list[PatchSet]:
    """The patch sets defined in this process (their modules imported), of `kind` if given."""
    return [s for s in _SETS.values() if kind is None or s.kind == kind]


def unpatched(owner: Any, name: Any, item: bool = False) -> Any:
    """What `owner` holds under `name` before any installed patch set replaced it (what a
    gate fingerprints), else what it holds now (inherited attributes included)."""
    for patch_set in _SETS.values():
        for p in patch_set.patches():
            if p.owner is owner and p.name == name and p.item == item:
                return p.original
    return owner.get(name) if item else getattr(owner, name)


class PatchSet:
    """Named parts installed together and undone exactly (fixes._patching's docstring).

    `gate` maps each gated part's name to the digest (or digests) of upstream sources it
    was checked against; the module owning the set keeps it, so a test can change it.
    `install()` is idempotent: each part is applied, or `skipped` says why not (its
    upstream source differs). `uninstall()` restores every entry, last part first, and
    forgets what was skipped.
    """

    def __init__(
        self, name: str, kind: str, parts: Sequence[Part], gate: Mapping[str, Any] | None = None
    ) -> None:
        gate = {} if gate is None else gate
        missing = [p.name for p in parts if p.upstream is not None and p.name not in gate]
        if missing:
            raise ValueError(f"patch set {name!r}: no gate digests for parts {missing}")
        self.name, self.kind, self.parts, self.gate = name, kind, tuple(parts), gate
        self.applied: dict[str, list[Patch]] = {}  # part -> its applied table
        self._undo: dict[str, Callable[[], None]] = {}  # part -> its before() hook's undo
        self.skipped: dict[str, str] = {}  # part not installed -> why
        self._active = False
        self._lock = threading.RLock()
        _SETS[name] = self

    def digests(self) -> dict[str, str]:
        """The installed upstream's digests, for each gated part (originals when patched)."""
        return {p.name: source_digest(*p.upstream()) for p in self.parts if p.upstream}

    def _known(self, part: str) -> Collection[str]:
        known = self.gate[part]
        return {known} if isinstance(known, str) else known

    def _check_gate(self, part: Part, table: list[Patch]) -> None:
        """Every function a part replaces must be among the upstream functions it gates
        (a part gated on package versions vouches for every function it replaces)."""
        if part.versions is not None:
            return
        gated = part.upstream() if part.upstream else ()
        outside = [
            p.where
            for p in table
            if callable(p.original) and not any(p.original is f for f in gated)
        ]
        if outside:
            raise ValueError(f"{self.name}:{part.name} replaces {outside} outside its gate")

    def install(self) -> None:
        with self._lock:
            if self._active:
                return
            try:
                for part in self.parts:
                    if part.upstream is not None:
                        digest = source_digest(*part.upstream())
                        if digest not in self._known(part.name):
                            known = ", ".join(sorted(self._known(part.name)))
                            self.skipped[part.name] = (
                                f"upstream source differs ({digest}, written against {known})"
                            )
                            continue
                    elif part.versions is not None:
                        mismatch = part.version_mismatch()
                        if mismatch is not None:
                            self.skipped[part.name] = mismatch
                            continue
                    table = part.table()
                    self._check_gate(part, table)
                    undo = part.before() if part.before is not None else None
                    try:
                        apply_all(table)
                    except BaseException:
                        if undo is not None:
                            undo()
                        raise
                    self.applied[part.name] = table
                    if undo is not None:
                        self._undo[part.name] = undo
            except BaseException:
                self._restore()
                raise
            self._active = True

    def _restore(self) -> None:
        for name in reversed(list(self.applied)):
            restore_all(self.applied.pop(name))
            undo = self._undo.pop(name, None)
            if undo is not None:
                undo()
        self.skipped.clear()

    def uninstall(self) -> None:
        with self._lock:
            self._restore()
            self._active = False

    def is_installed(self) -> bool:
        return bool(self.applied)

    def is_active(self) -> bool:
        """Whether `install()` ran and was not undone (also when every part was skipped)."""
        return self._active

    def installed_names(self) -> list[str]:
        return sorted(self.applied)

    def patches(self) -> tuple[Patch, ...]:
        """Every applied entry, in the order applied."""
        return tuple(p for table in self.applied.values() for p in table)

    def original(self, part: str, where: str) -> Any:
        """The original an applied entry of `part` replaced (`where` as `Patch.where`)."""
        return next(p.original for p in self.applied[part] if p.where == where)
