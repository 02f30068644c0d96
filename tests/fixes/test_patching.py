"""fixes._patching: patch tables applied and restored exactly (no package imported)."""

from __future__ import annotations

import pytest

from fixes._patching import ABSENT, Patch, apply_all, current, restore_all


class _Base:
    def inherited(self):
        return "base"


def _make_class():
    class C(_Base):
        @staticmethod
        def helper(x):
            return x + 1

        def method(self):
            return "m"

        def hook(self):
            return "hook"

    return C


def test_round_trip_restores_the_stored_objects():
    C = _make_class()
    lookup = {"kept": 1, "replaced": 2}
    before, before_lookup = dict(vars(C)), dict(lookup)
    table = [
        Patch.wrap(C, "helper", lambda sm: staticmethod(lambda x: sm.__func__(x) * 10)),
        Patch.wrap(C, "method", lambda m: lambda self: m(self).upper()),
        Patch.set(C, "inherited", lambda self: "own"),  # shadows the base's
        Patch.set(C, "marker", True),  # added
        Patch.delete(C, "hook"),  # removed
        Patch.delete(C, "never_there"),  # nothing to remove
        Patch.set(lookup, "added", 3, item=True),
        Patch.wrap(lookup, "replaced", lambda v: v * 100, item=True),
    ]
    assert table[0].original is before["helper"]  # the staticmethod object itself
    assert table[2].original is ABSENT and table[3].original is ABSENT
    for _ in range(2):
        apply_all(table)
        assert all(p.is_applied() for p in table)
        c = C()
        assert (C.helper(1), c.method(), c.inherited(), C.marker) == (20, "M", "own", True)
        assert not hasattr(c, "hook")
        assert lookup == {"kept": 1, "replaced": 200, "added": 3}
        restore_all(table)
        assert all(p.is_restored() for p in table)
        assert vars(C).keys() == before.keys()
        assert all(vars(C)[k] is v for k, v in before.items())
        assert C().inherited() == "base" and C().hook() == "hook"
        assert lookup == before_lookup and "added" not in lookup


def test_apply_all_undoes_what_it_applied_when_an_entry_fails():
    C = _make_class()
    before = dict(vars(C))
    table = [Patch.set(C, "method", lambda self: "new"), Patch.set(int, "real", 0)]
    with pytest.raises(TypeError):
        apply_all(table)  # int's attributes cannot be set
    assert all(vars(C)[k] is v for k, v in before.items())


def test_wrap_refuses_a_missing_original():
    C = _make_class()
    with pytest.raises(LookupError, match="inherited"):
        Patch.wrap(C, "inherited", lambda m: m)  # not in C's own dict
    with pytest.raises(LookupError):
        Patch.wrap({}, "k", lambda v: v, item=True)
    assert current(C, "inherited") is ABSENT
