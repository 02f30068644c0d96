"""Exact, reversible monkeypatches for the fault plugins.

`Patches` sets attributes (on a module, a class or a dict) and remembers what was there,
so `uninstall()` puts back the very objects it replaced. Nothing under `fuzz/` is ever
patched: the faults go into the stacks under test (or into `fixes/`, our own fixes).
"""

from __future__ import annotations

from typing import Any

_MISSING = object()


class Patches:
    def __init__(self, name: str):
        self.name = name
        self._saved: list[tuple[Any, str, Any, bool]] = []

    @property
    def installed(self) -> bool:
        return bool(self._saved)

    def set(self, owner: Any, attr: str, value: Any, *, item: bool = False) -> Any:
        """Replace `owner.attr` (or `owner[attr]` with item=True) by `value`; return the
        original."""
        if item:
            original = owner.get(attr, _MISSING)
            owner[attr] = value
        else:
            # The raw entry (a staticmethod stays a staticmethod); an inherited or absent
            # attribute is deleted again on uninstall.
            original = vars(owner).get(attr, _MISSING)
            setattr(owner, attr, value)
        self._saved.append((owner, attr, original, item))
        return original

    def uninstall(self) -> None:
        while self._saved:
            owner, attr, original, item = self._saved.pop()
            if item:
                if original is _MISSING:
                    del owner[attr]
                else:
                    owner[attr] = original
            elif original is _MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, original)
