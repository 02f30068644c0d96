"""The fix registry: applying, removing and switching fixes in one process.

* `fixes.remove` / `fixes.applied` / `fixes.state_for` on stand-in fixes (no package
  imported): statuses, `active()`, restoring the previous state (also on errors).
* Round trips install -> uninstall -> install -> uninstall of both real fixes leave every
  patched object identical (`is`) to the original: class dicts, module attributes,
  Thunder's lookaside map, the fix's own code-object sets.
* Stock and fixed Thunder compared in this process by switching: the seed bug of
  corpus/thunder_symbolic_cache_shape_branch.py hits the stale branch on stock Thunder
  and misses with the fix, whichever order the switches come in.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from packaging.version import Version

import fixes
from fixes import _registry
from fixes._patching import ABSENT, Part, PatchSet

ROOT = Path(__file__).resolve().parents[3]
THUNDER_FIX = "thunder-symbolic-cache"
EXECUTORCH_FIX = "executorch-specprop"


# ------------------------------------------------------------------ stand-in fixes


class _Counter:
    """A stand-in fix's patch set: counts its installs and its exact undos."""

    def __init__(self, name: str):
        self.installs = self.uninstalls = 0
        self.patches = PatchSet(
            f"test-fix-{name}",
            "test",
            [Part(name, lambda: [], ungated="a stand-in: patches nothing", before=self._count)],
        )

    def _count(self):
        self.installs += 1

        def undo():
            self.uninstalls += 1

        return undo


@pytest.fixture
def fake(monkeypatch):
    """A registry holding only stand-ins: "a" and "b" apply (pkg-a 1.0, pkg-b 1.0),
    "up" is fixed upstream, "gone" has no package, "new" is a version it does not cover."""
    versions = {"pkg-a": "1.0", "pkg-b": "1.0", "pkg-up": "2.0", "pkg-new": "9.0"}
    counters = {}
    registry = {}
    for name, package in (("a", "pkg-a"), ("b", "pkg-b"), ("up", "pkg-up")):
        counters[name] = c = _Counter(name)
        registry[name] = fixes.Fix(
            name=name,
            package=package,
            upstream="https://example.invalid",
            summary="stand-in",
            versions="<2",
            covers=lambda v: v < Version("2"),
            already_fixed=lambda v: v >= Version("2"),
            patches=c.patches,
        )
    for name, package in (("gone", "pkg-gone"), ("new", "pkg-new")):
        counters[name] = c = _Counter(name)
        registry[name] = fixes.Fix(
            name=name,
            package=package,
            upstream="https://example.invalid",
            summary="stand-in",
            versions="==1.0",
            covers=lambda v: v == Version("1.0"),
            already_fixed=lambda v: False,
            patches=c.patches,
        )
    monkeypatch.setattr(_registry, "_FIXES", registry)
    monkeypatch.setattr(_registry, "_STATUS", {})
    monkeypatch.setattr(
        _registry,
        "installed_version",
        lambda package: Version(versions[package]) if package in versions else None,
    )
    return counters


def test_state_for_answers_from_the_installed_version(fake):
    states = {n: fixes.state_for(n) for n in ("a", "up", "gone", "new")}
    assert {n: s.state for n, s in states.items()} == {
        "a": "applies",
        "up": "upstream",
        "gone": "absent",
        "new": "uncovered",
    }
    assert {s.state for s in states.values()} == set(fixes.STATES)
    assert states["a"].version == Version("1.0") and states["gone"].version is None
    assert str(states["new"]) == "new covers pkg-new==1.0; 9.0 is installed"
    assert str(states["gone"]) == "pkg-gone is not installed (gone)"
    with pytest.raises(fixes.FixError, match="unknown fix"):
        fixes.state_for("nope")
    assert fake["a"].installs == 0  # asking installs nothing


def test_apply_uses_state_for(fake):
    statuses = fixes.apply(["a", "up", "gone"])
    assert [s.state for s in statuses] == ["applied", "upstream", "absent"]
    assert [s.version for s in statuses] == ["1.0", "2.0", None]
    with pytest.raises(fixes.FixError, match=r"covers pkg-new==1.0, but 9.0 is installed"):
        fixes.apply(["new"])
    assert "new" not in fixes.active() and fake["new"].installs == 0
    assert fake["a"].installs == 1 and fake["up"].installs == 0


def test_remove_uninstalls_and_active_reflects_it(fake):
    fixes.apply(["a", "b", "up"])
    assert fixes.active() == {"a": "applied", "b": "applied", "up": "upstream"}
    assert fixes.remove(["a", "up", "gone"]) == ["a", "up"]  # "gone" was not applied
    assert fixes.active() == {"b": "applied"}
    assert (fake["a"].uninstalls, fake["b"].uninstalls, fake["up"].uninstalls) == (1, 0, 0)
    assert fixes.remove(["a"]) == [] and fake["a"].uninstalls == 1  # idempotent
    fixes.apply(["a"])
    assert fake["a"].installs == 2 and fixes.active() == {"b": "applied", "a": "applied"}
    with pytest.raises(fixes.FixError, match="unknown fix"):
        fixes.remove(["nope"])


def test_applied_switches_exactly_and_restores(fake):
    before = fixes.apply(["a", "up"])
    with fixes.applied("off") as statuses:
        assert statuses == [] and fixes.active() == {}
        assert fake["a"].uninstalls == 1
    assert fixes.active() == {"a": "applied", "up": "upstream"}
    assert [_registry._STATUS[n] for n in ("a", "up")] == before  # the same status objects
    assert (fake["a"].installs, fake["a"].uninstalls) == (2, 1)

    with fixes.applied("b") as statuses:
        assert [str(s) for s in statuses] == ["b (pkg-b 1.0): applied"]
        assert fixes.active() == {"b": "applied"}
    assert fixes.active() == {"a": "applied", "up": "upstream"}
    assert (fake["b"].installs, fake["b"].uninstalls) == (1, 1)
    assert (fake["a"].installs, fake["a"].uninstalls) == (3, 2)

    with fixes.applied(["a", "b"]):  # "a" stays installed: not uninstalled and reinstalled
        assert fixes.active() == {"a": "applied", "b": "applied"}
    assert (fake["a"].installs, fake["a"].uninstalls) == (3, 2)
    assert fixes.active() == {"a": "applied", "up": "upstream"}


def test_applied_restores_when_the_block_or_the_switch_fails(fake):
    fixes.apply(["a"])
    with pytest.raises(RuntimeError, match="boom"), fixes.applied("off"):
        raise RuntimeError("boom")
    assert fixes.active() == {"a": "applied"}
    with pytest.raises(fixes.FixError, match="9.0 is installed"), fixes.applied(["b", "new"]):
        pass
    assert fixes.active() == {"a": "applied"}
    assert fake["b"].installs == fake["b"].uninstalls == 1
    with pytest.raises(fixes.FixError, match="unknown fix"), fixes.applied("nope"):
        pass
    assert fixes.active() == {"a": "applied"}


# --------------------------------------------------------------- round trips: Thunder


def _require(name: str) -> None:
    state = fixes.state_for(name)
    if state.state != "applies":
        pytest.skip(str(state))


def _thunder_targets() -> dict:
    """Everything the Thunder fix may replace, read straight from the owners: the class
    dicts whole, the module attributes it patches, the lookaside map whole."""
    from fixes.compat_thunder_named_tensor import import_thunder

    thunder = import_thunder()
    import thunder.clang as clang
    import thunder.core.jit_ext as jit_ext
    import thunder.core.proxies as proxies
    import thunder.core.utils as tutils
    import thunder.torch as ltorch
    from thunder.core.symbol import Symbol

    from fixes.thunder_symbolic_cache import recorder

    classes = (proxies.NumberProxy, proxies.IntegerProxy, Symbol, jit_ext.JitCtx)
    attrs = {
        jit_ext: ("thunder_general_jit", "propagate_constraints", "unpack_inputs"),
        thunder: ("thunder_general_jit", "insert_alias_updates"),
        tutils: ("same_shape",),
        clang: ("math",),
        ltorch: ("opt_einsum",),
    }
    return {
        "classes": {cls: dict(vars(cls)) for cls in classes},
        "attrs": {(m, a): vars(m)[a] for m, names in attrs.items() for a in names},
        "lookasides": dict(jit_ext._general_jit_lookaside_map),
        "lookaside_map": jit_ext._general_jit_lookaside_map,
        "codes": (set(recorder.BENIGN_CODES), set(recorder.PASS_THROUGH_CODES)),
    }


def _assert_identical(before: dict, after: dict) -> None:
    for cls, d in before["classes"].items():
        now = after["classes"][cls]
        assert now.keys() == d.keys(), (cls, now.keys() ^ d.keys())
        changed = [k for k in d if now[k] is not d[k]]
        assert not changed, (cls, changed)
    for (m, a), obj in before["attrs"].items():
        assert after["attrs"][(m, a)] is obj, (m.__name__, a)
    assert after["lookaside_map"] is before["lookaside_map"]
    assert after["lookasides"].keys() == before["lookasides"].keys()
    assert all(after["lookasides"][k] is v for k, v in before["lookasides"].items())
    assert after["codes"] == before["codes"]


def test_thunder_fix_round_trip_restores_every_patched_object():
    _require(THUNDER_FIX)
    import fixes.thunder_symbolic_cache as mod
    from fixes.compat_thunder_named_tensor import import_thunder

    import_thunder()
    from thunder.core.proxies import NumberProxy

    with fixes.applied("off"):
        stock = _thunder_targets()
        assert mod.installed_patches() == ()
        tables = []
        for _ in range(2):  # install -> uninstall -> install -> uninstall
            (status,) = fixes.apply([THUNDER_FIX])
            assert status.state == "applied" and fixes.active() == {THUNDER_FIX: "applied"}
            table = mod.installed_patches()
            assert table and all(p.is_applied() for p in table)
            # The table wraps the real originals (not a previous round's wrappers).
            for p in table:
                if p.item:
                    assert p.original is stock["lookasides"].get(p.name, ABSENT), p
                elif isinstance(p.owner, type):
                    assert p.original is stock["classes"][p.owner].get(p.name, ABSENT), p
                else:
                    assert p.original is stock["attrs"][(p.owner, p.name)], p
            patched = _thunder_targets()
            assert (
                patched["classes"][NumberProxy]["__bool__"]
                is not (stock["classes"][NumberProxy]["__bool__"])
            )
            assert "value" in patched["classes"][NumberProxy]
            assert "value" not in stock["classes"][NumberProxy]
            assert len(patched["lookasides"]) == len(stock["lookasides"]) + 4
            assert patched["codes"][0] and patched["codes"][1]  # filled by install
            mod.install()  # a second install is a no-op
            assert mod.installed_patches() == table
            assert fixes.remove([THUNDER_FIX]) == [THUNDER_FIX]
            assert THUNDER_FIX not in fixes.active()
            assert mod.installed_patches() == ()
            assert all(p.is_restored() for p in table)
            _assert_identical(stock, _thunder_targets())
            mod.uninstall()  # a second uninstall is a no-op
            _assert_identical(stock, _thunder_targets())
            tables.append(table)
        assert all(a is not b for a, b in zip(*tables))  # fresh entries each round


# ------------------------------------------------------------ round trips: ExecuTorch


def test_executorch_fix_round_trip_restores_the_class():
    """Where the fix applies (executorch < 1.1): through the registry and by installing
    its patch set directly, every round restoring the class exactly. Elsewhere the set's
    version gate refuses to install (the class is left as it is and `skipped` says why)."""
    state = fixes.state_for(EXECUTORCH_FIX)
    if state.state == "absent":
        pytest.skip(str(state))
    import fixes.executorch_specprop as es

    with fixes.applied("off"):
        from executorch.exir.passes import spec_prop_pass

        cls = spec_prop_pass.SpecPropPass
        stock = dict(vars(cls))
        assert not getattr(cls, es.MARKER, False)

        def check_restored():
            now = dict(vars(cls))
            assert now.keys() == stock.keys(), now.keys() ^ stock.keys()
            assert all(now[k] is v for k, v in stock.items())
            assert es.installed_patches() == ()

        def check_patched():
            assert getattr(cls, es.MARKER) is True
            assert [h for h in es.OLD_HOOKS if h in vars(cls)] == []
            assert vars(cls)["__call__"] is not stock.get("__call__")
            table = es.installed_patches()
            assert all(p.is_applied() for p in table)
            removed = {p.name: p.original for p in table if p.name in es.OLD_HOOKS}
            assert removed == {h: stock[h] for h in es.OLD_HOOKS if h in stock}
            assert all(p.original is stock.get(p.name, ABSENT) for p in table)

        if state.state != "applies":
            try:
                es.install()
                assert es.PATCHES.skipped["backport"].startswith("executorch ")
                check_restored()
            finally:
                es.uninstall()
            assert not es.PATCHES.skipped
            return
        rounds = [(es.install, es.uninstall)] * 2
        rounds += [
            (lambda: fixes.apply([EXECUTORCH_FIX]), lambda: fixes.remove([EXECUTORCH_FIX]))
        ] * 2
        try:
            for install, uninstall in rounds:
                install()
                check_patched()
                install()  # no-op
                check_patched()
                uninstall()
                check_restored()
                uninstall()  # no-op
                check_restored()
        finally:
            es.uninstall()
        assert stock.keys() & set(es.OLD_HOOKS)  # the legacy class had hooks to restore


# ------------------------------------------------- stock vs fixed, switched in-process


def _shape_branch_seed():
    case = runpy.run_path(str(ROOT / "corpus" / "thunder_symbolic_cache_shape_branch.py"))
    return case["program"], case["calls"]()


def _run_seed(program, calls) -> dict:
    import thunder
    import torch

    jf = thunder.jit(program, cache="symbolic values")
    jf(*calls[0])
    out = jf(*calls[1])
    expected = program(*calls[1])
    a, b = calls[1]
    return {
        "hits": thunder.cache_hits(jf),
        "misses": thunder.cache_misses(jf),
        "eager_is_b": expected is b,
        "returned_a": out.shape == a.shape and torch.equal(out, a),
        "matches_eager": out.shape == expected.shape and torch.equal(out, expected),
    }


def test_shape_branch_seed_stock_hits_fixed_misses_in_one_process():
    _require(THUNDER_FIX)
    from fixes.compat_thunder_named_tensor import import_thunder

    import_thunder()
    program, calls = _shape_branch_seed()
    before = fixes.active()
    seen = []
    for switch in ("off", [THUNDER_FIX], "off", [THUNDER_FIX]):
        with fixes.applied(switch):
            seen.append((switch, _run_seed(program, calls)))
        assert fixes.active() == before
    for switch, r in seen:
        assert r["eager_is_b"], r  # eager takes the other branch on the second call
        if switch == "off":
            # The upstream bug: a cache hit that runs the (2, 2) branch and returns `a`.
            assert (r["hits"], r["misses"]) == (1, 1), (switch, r)
            assert r["returned_a"] and not r["matches_eager"], (switch, r)
        else:
            assert (r["hits"], r["misses"]) == (0, 2), (switch, r)
            assert r["matches_eager"] and not r["returned_a"], (switch, r)
