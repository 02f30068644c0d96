"""The fix registry: what each fix is, which versions it covers, and applying it once.

Each fix module describes itself with one `Fix` and registers it here. Applying is
explicit (`fixes.apply(...)`), idempotent, and never writes into site-packages: fixes
are monkeypatches installed at run time.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
from collections.abc import Callable, Iterable

from packaging.version import Version

ENV_VAR = "FUZZ_FIXES"


class FixError(RuntimeError):
    """A fix was asked for where it cannot apply (unknown name, uncovered version)."""


def installed_version(package: str) -> Version | None:
    try:
        return Version(importlib.metadata.version(package))
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclasses.dataclass(frozen=True)
class Fix:
    """One fix for one upstream bug.

    `covers(v)` says whether the patch knows this version of `package`;
    `already_fixed(v)` says whether that version already contains the fix (then applying
    is a no-op that says so). `install()` performs the monkeypatch; it is called once.
    """

    name: str
    package: str
    upstream: str
    summary: str
    versions: str  # human-readable range the patch covers, e.g. "==0.2.6"
    covers: Callable[[Version], bool]
    already_fixed: Callable[[Version], bool]
    install: Callable[[], None]


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


def parse_switch(value: str | None) -> list[str]:
    """`on` -> every fix, `off`/empty -> none, `a,b` -> those names (checked)."""
    value = (value or "off").strip()
    if value in ("", "off", "none", "0"):
        return []
    if value in ("on", "all", "1"):
        return list(_FIXES)
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in _FIXES]
    if unknown:
        raise FixError(f"unknown fix name(s) {unknown}; known: {sorted(_FIXES)}")
    return names


def apply(names: Iterable[str] | str) -> list[FixStatus]:
    """Apply the named fixes (or a switch string such as "on"). Idempotent."""
    if isinstance(names, str):
        names = parse_switch(names)
    out = []
    for name in names:
        if name not in _FIXES:
            raise FixError(f"unknown fix {name!r}; known: {sorted(_FIXES)}")
        if name in _STATUS:
            out.append(_STATUS[name])
            continue
        fix = _FIXES[name]
        version = installed_version(fix.package)
        if version is None:
            status = FixStatus(name, fix.package, None, "absent")
        elif fix.already_fixed(version):
            status = FixStatus(name, fix.package, str(version), "upstream")
        elif not fix.covers(version):
            raise FixError(
                f"fix {name!r} covers {fix.package}{fix.versions}, but {version} is installed"
            )
        else:
            fix.install()
            status = FixStatus(name, fix.package, str(version), "applied")
        _STATUS[name] = status
        out.append(status)
    return out


def active() -> dict[str, str]:
    """Fixes applied in this process: name -> state."""
    return {name: status.state for name, status in _STATUS.items()}


def package_versions() -> dict[str, str | None]:
    pkgs = ("torch", "executorch", "lightning-thunder", "hypothesis")
    return {p: (str(v) if (v := installed_version(p)) else None) for p in pkgs}
