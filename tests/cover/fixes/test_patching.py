"""fixes._patching: patch tables applied and restored exactly (no package imported)."""

from __future__ import annotations

import pytest

from fixes._patching import (
    ABSENT,
    Part,
    Patch,
    PatchSet,
    SwitchError,
    apply_all,
    current,
    parse_switch,
    patch_sets,
    restore_all,
    source_digest,
    unpatched,
)


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


def _upstream_add(x):
    return x + 1


def _upstream_mul(x):
    return x * 2


def _upstream_module():
    """A namespace with two upstream functions and a marker, as a speedup patches one."""
    import types

    return types.SimpleNamespace(add=_upstream_add, mul=_upstream_mul, marker="m")


def _set_with(ns, gate, name="test-set"):
    return PatchSet(
        name,
        "test",
        [
            Part(
                "add",
                lambda: [Patch.wrap(ns, "add", lambda f: lambda x: f(x) + 100)],
                upstream=lambda: (unpatched(ns, "add"),),
            ),
            Part(
                "flag",
                lambda: [Patch.set(ns, "flag", True)],
                ungated="adds a name the namespace lacks",
            ),
        ],
        gate,
    )


def test_a_patch_set_installs_over_the_known_source_and_undoes_exactly():
    ns = _upstream_module()
    before = dict(vars(ns))
    gate = {"add": source_digest(_upstream_add)}
    patches = _set_with(ns, gate)
    assert patches in patch_sets("test")
    for _ in range(2):
        patches.install()
        patches.install()  # idempotent: not applied twice
        assert ns.add(1) == 102 and ns.flag is True
        assert patches.installed_names() == ["add", "flag"] and not patches.skipped
        assert unpatched(ns, "add") is _upstream_add  # what the gate fingerprints
        assert patches.digests() == gate
        patches.uninstall()
        assert vars(ns).keys() == before.keys()
        assert all(vars(ns)[k] is v for k, v in before.items())
        assert not patches.is_installed()


def test_a_changed_upstream_source_keeps_upstreams_and_says_why():
    ns = _upstream_module()
    patches = _set_with(ns, {"add": "0" * 16})
    patches.install()
    assert ns.add is _upstream_add and ns.flag is True
    assert patches.installed_names() == ["flag"]
    assert patches.skipped["add"].startswith("upstream source differs")
    patches.uninstall()
    assert not patches.skipped and not hasattr(ns, "flag")


def test_a_part_must_gate_every_function_it_replaces():
    ns = _upstream_module()
    outside = PatchSet(
        "test-outside",
        "test",
        [
            Part(
                "both",
                lambda: [Patch.wrap(ns, "add", lambda f: f), Patch.wrap(ns, "mul", lambda f: f)],
                upstream=lambda: (unpatched(ns, "add"),),
            )
        ],
        {"both": source_digest(_upstream_add)},
    )
    with pytest.raises(ValueError, match="mul"):
        outside.install()
    ungated = PatchSet(
        "test-ungated",
        "test",
        [Part("mul", lambda: [Patch.wrap(ns, "mul", lambda f: f)], ungated="says it is safe")],
    )
    with pytest.raises(ValueError, match="mul"):
        ungated.install()
    assert ns.add is _upstream_add and ns.mul is _upstream_mul  # nothing left applied
    with pytest.raises(ValueError, match="either"):
        Part("neither", lambda: [])
    with pytest.raises(ValueError, match="no gate"):
        PatchSet("test-nogate", "test", [Part("p", lambda: [], upstream=lambda: ())])


def test_a_version_gated_part_installs_only_inside_its_range_and_may_replace_functions():
    import hypothesis

    ns = _upstream_module()
    inside = PatchSet(
        "test-versions-inside",
        "test",
        [
            Part(
                "add",
                lambda: [Patch.wrap(ns, "add", lambda f: lambda x: f(x) + 1)],
                versions={"hypothesis": ">=1"},
            )
        ],
    )
    inside.install()
    assert inside.installed_names() == ["add"] and ns.add is not _upstream_add
    inside.uninstall()
    assert ns.add is _upstream_add
    outside = PatchSet(
        "test-versions-outside",
        "test",
        [
            Part("old", lambda: [Patch.set(ns, "flag", 1)], versions={"hypothesis": "<1"}),
            Part("gone", lambda: [Patch.set(ns, "flag", 2)], versions={"no-such-pkg": ">=0"}),
        ],
    )
    outside.install()
    assert not outside.is_installed() and not hasattr(ns, "flag")
    assert outside.skipped == {
        "old": f"hypothesis {hypothesis.__version__} is outside <1",
        "gone": "no-such-pkg is not installed",
    }
    outside.uninstall()
    assert not outside.skipped
    with pytest.raises(ValueError, match="either"):
        Part("two", lambda: [], ungated="x", versions={"hypothesis": ">=1"})


def test_a_parts_before_hook_is_undone_with_it_also_when_applying_fails():
    ns = _upstream_module()
    state = {"filled": False}

    def fill():
        state["filled"] = True
        return lambda: state.update(filled=False)

    ok = PatchSet("test-before", "test", [Part("p", lambda: [], ungated="x", before=fill)])
    ok.install()
    assert state["filled"] and ok.is_installed()
    ok.uninstall()
    assert not state["filled"]

    class Refuses:
        def __setattr__(self, name, value):
            raise RuntimeError("read-only")

    broken = PatchSet(
        "test-before-broken",
        "test",
        [Part("p", lambda: [Patch.set(Refuses(), "x", 1)], ungated="x", before=fill)],
    )
    with pytest.raises(RuntimeError, match="read-only"):
        broken.install()
    assert not state["filled"] and not broken.is_installed()
    assert vars(ns).get("flag") is None


def test_one_switch_parser():
    known = ["a", "b", "c"]
    assert parse_switch("on", known) == known and parse_switch("ALL", known) == known
    assert parse_switch("off", known) == [] and parse_switch(" ", known) == []
    assert parse_switch("c, a", known) == ["c", "a"]
    with pytest.raises(SwitchError, match=r"unknown lane\(s\) \['d'\]"):
        parse_switch("a,d", known, "lane")
    with pytest.raises(SwitchError, match="no fix switch"):
        parse_switch(None, known, "fix")
