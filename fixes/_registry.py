"""The fix registry: what each fix is, which versions it covers, applying and removing it.

Each fix module describes itself with one `Fix` and registers it here. Applying is
explicit (`fixes.apply(...)`), idempotent, and never writes into site-packages: fixes
are monkeypatches installed at run time. `fixes.remove(...)` undoes them exactly, and
`with fixes.applied(...):` runs a block with exactly the given fixes and restores the
previous state after it, so stock and fixed behaviour can be compared in one process.
`fixes.state_for(name)` is the one place that reads a fix's package version and says
what applying it would do there.

A fix's patches are a `fixes._patching.PatchSet` of kind "fix" (the one patching
mechanism), gated on the versions the fix covers; the registry installs and uninstalls
it, and the set itself makes installing idempotent and undoing exact. The switch is
parsed by `fixes._patching.parse_switch`; it has no default here (fuzz/defaults.py says
the harness's).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Iterator

from packaging.version import Version

from fixes._patching import PatchSet, SwitchError, installed_version
from fixes._patching import parse_switch as _parse

ENV_VAR = "FUZZ_FIXES"


class FixError(RuntimeError):
    """A fix was asked for where it cannot apply (unknown name, uncovered version)."""


@dataclasses.dataclass(frozen=True)
class Fix:
    """One fix for one upstream bug.

    `covers(v)` says whether the patch knows this version of `package`;
    `already_fixed(v)` says whether that version already contains the fix (then applying
    is a no-op that says so). `patches` is the monkeypatch, a `PatchSet` of kind "fix":
    `install()` applies it (a second call is a no-op); `uninstall()` restores every
    patched object exactly as it was (a no-op when not installed).
    """

    name: str
    package: str
    upstream: str
    summary: str
    versions: str  # human-readable range the patch covers, e.g. "==0.2.6"
    covers: Callable[[Version], bool]
    already_fixed: Callable[[Version], bool]
    patches: PatchSet

    @property
    def install(self) -> Callable[[], None]:
        return self.patches.install

    @property
    def uninstall(self) -> Callable[[], None]:
        return self.patches.uninstall


# What applying a fix would do with the installed version of its package.
STATES = ("applies", "upstream", "absent", "uncovered")


@dataclasses.dataclass(frozen=True)
class FixState:
    """`state`: "applies" (the patch covers the installed version and it has the bug),
    "upstream" (that version already contains the fix), "absent" (the package is not
    installed) or "uncovered" (a version the patch does not know)."""

    name: str
    package: str
    version: Version | None
    state: str

    def __str__(self) -> str:
        fix = _FIXES[self.name]
        if self.state == "absent":
            return f"{self.package} is not installed ({self.name})"
        if self.state == "upstream":
            return f"{self.package} {self.version} already contains {self.name} upstream"
        if self.state == "uncovered":
            return f"{self.name} covers {self.package}{fix.versions}; {self.version} is installed"
        return f"{self.name} applies to {self.package} {self.version} ({fix.versions})"


@dataclasses.dataclass(frozen=True)
class FixStatus:
    name: str
    package: str
    version: str | None
    state: str  # "applied" | "upstream" (already in the package) | "absent" (package missing)

    def __str__(self) -> str:
        return f"{self.name} ({self.package} {self.version}): {self.state}"


_FIXES: dict[str, Fix] = {}
_STATUS: dict[str, FixStatus] = {}


def register(fix: Fix) -> Fix:
    _FIXES[fix.name] = fix
    return fix


def all_fixes() -> dict[str, Fix]:
    return dict(_FIXES)


def parse_switch(value: str) -> list[str]:
    """`on` -> every fix, `off`/empty -> none, `a,b` -> those names (checked): the shared
    parser, fixes._patching.parse_switch."""
    try:
        return _parse(value, list(_FIXES), "fix name")
    except SwitchError as e:
        raise FixError(str(e)) from e


def _names(names: Iterable[str] | str) -> list[str]:
    names = parse_switch(names) if isinstance(names, str) else list(names)
    for name in names:
        if name not in _FIXES:
            raise FixError(f"unknown fix {name!r}; known: {sorted(_FIXES)}")
    return names


def state_for(name: str) -> FixState:
    """What applying fix `name` would do here, from the installed version of its package."""
    (name,) = _names([name])
    fix = _FIXES[name]
    version = installed_version(fix.package)
    if version is None:
        state = "absent"
    elif fix.already_fixed(version):
        state = "upstream"
    elif not fix.covers(version):
        state = "uncovered"
    else:
        state = "applies"
    return FixState(name, fix.package, version, state)


def apply(names: Iterable[str] | str) -> list[FixStatus]:
    """Apply the named fixes (or a switch string such as "on"). Idempotent."""
    out = []
    for name in _names(names):
        if name in _STATUS:
            out.append(_STATUS[name])
            continue
        fix = _FIXES[name]
        st = state_for(name)
        version = None if st.version is None else str(st.version)
        if st.state == "uncovered":
            raise FixError(
                f"fix {name!r} covers {fix.package}{fix.versions}, but {version} is installed"
            )
        if st.state == "applies":
            fix.install()
        status = FixStatus(name, fix.package, version, _APPLIED_STATE[st.state])
        _STATUS[name] = status
        out.append(status)
    return out


# state_for's answer -> the FixStatus state after applying.
_APPLIED_STATE = {"applies": "applied", "upstream": "upstream", "absent": "absent"}


def remove(names: Iterable[str] | str) -> list[str]:
    """Undo the named fixes (or a switch string: "on" removes every fix): an applied one
    is uninstalled, every patched object restored; "upstream"/"absent" ones are only
    forgotten. Names not applied are skipped. Returns the names removed."""
    removed = []
    for name in _names(names):
        status = _STATUS.get(name)
        if status is None:
            continue
        if status.state == "applied":
            _FIXES[name].uninstall()
        del _STATUS[name]
        removed.append(name)
    return removed


@contextlib.contextmanager
def applied(names: Iterable[str] | str) -> Iterator[list[FixStatus]]:
    """`with fixes.applied("thunder-symbolic-cache") as statuses:` runs the block with
    exactly these fixes (a name list or a switch string; "off" for none): the others are
    removed for the block. The previous state (which fixes, their statuses) is restored
    on exit, also when the block raises."""
    wanted = _names(names)
    previous = dict(_STATUS)
    try:
        remove([n for n in _STATUS if n not in wanted])
        yield apply(wanted)
    finally:
        remove([n for n in _STATUS if n not in previous])
        apply([n for n in previous if n not in _STATUS])
        _STATUS.clear()
        _STATUS.update(previous)


def active() -> dict[str, str]:
    """Fixes applied in this process (removed ones are gone): name -> state."""
    return {name: status.state for name, status in _STATUS.items()}


def package_versions() -> dict[str, str | None]:
    pkgs = ("torch", "executorch", "lightning-thunder", "hypothesis")
    return {p: (str(v) if (v := installed_version(p)) else None) for p in pkgs}
