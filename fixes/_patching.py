"""Monkeypatches as data: tables of `Patch` entries that are applied and undone exactly.

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
from collections.abc import Callable, Sequence
from typing import Any


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

    def __repr__(self) -> str:
        owner = getattr(self.owner, "__qualname__", None) or getattr(
            self.owner, "__name__", type(self.owner).__name__
        )
        where = f"{owner}[{self.name!r}]" if self.item else f"{owner}.{self.name}"
        return f"Patch({where})"


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
