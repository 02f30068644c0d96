"""fuzz/backends/exir/speedups.py changes how fast to_edge runs, never what it builds."""

from __future__ import annotations

import copy
import functools
import warnings

import pytest
import torch
import torch._export.utils as export_utils
import torch._ops
import torch._subclasses.fake_impls as fake_impls
import torch.export.exported_program as exported_program
from torch.export import Dim, export

from fuzz.backends.exir import speedups

to_edge = pytest.importorskip("executorch.exir").to_edge


@pytest.fixture
def restore_speedups():
    was = speedups.installed()
    yield
    (speedups.install if was else speedups.uninstall)()


class Programs:
    class Linear(torch.nn.Module):  # aten.linear is a CompositeImplicitAutograd op
        def forward(self, x, w):
            return (torch.nn.functional.linear(x, w).flatten(), x.square().sum(0))

    class Broadcast(torch.nn.Module):
        def forward(self, x, y):
            return (torch.where(x > 0, x, y) * 2.0, (x + y).softmax(-1))

    class Views(torch.nn.Module):
        def forward(self, x):
            return (x.transpose(0, 1).reshape(-1).cumsum(0), x.unsqueeze(0).expand(2, -1, -1))


def _exported(name: str):
    n = Dim("n", min=2, max=8)
    x = torch.randn(3, 4)
    if name == "Linear":
        return export(Programs.Linear(), (x, torch.randn(5, 4)), dynamic_shapes=({0: n}, None))
    if name == "Broadcast":
        return export(Programs.Broadcast(), (x, torch.randn(1, 4)), dynamic_shapes=({0: n}, None))
    return export(Programs.Views(), (x,), dynamic_shapes=({0: n},))


def _edge_graph(ep) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        edge = to_edge(copy.deepcopy(ep)).exported_program()
    return edge.graph_module.code, str(edge.graph_signature)


@pytest.mark.parametrize("name", ["Linear", "Broadcast", "Views"])
def test_to_edge_builds_the_same_graph_with_and_without_them(name, restore_speedups):
    ep = _exported(name)
    speedups.uninstall()
    stock = _edge_graph(ep)
    speedups.install()
    assert export_utils._collect_all_valid_cia_ops.__wrapped__ is not None  # in effect
    assert torch._ops.OperatorBase.py_impl.__wrapped__ is not None
    assert _edge_graph(ep) == stock


def test_the_collection_equals_upstreams_and_sees_a_new_op(restore_speedups):
    """Nothing is cached across collections: an op registered after one is in the next."""
    speedups.install()
    faster = export_utils._collect_all_valid_cia_ops
    upstream = faster.__wrapped__
    assert faster() == upstream()
    lib = torch.library.Library("fuzzspeedups", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CompositeImplicitAutograd")
    new_op = torch.ops.fuzzspeedups.twice.default
    found = faster()
    assert new_op in found and found == upstream()


def test_py_impl_registers_kernels_as_before(restore_speedups):
    speedups.install()
    recompiled = torch._ops.OperatorBase.py_impl
    assert recompiled.__code__.co_firstlineno == recompiled.__wrapped__.__code__.co_firstlineno
    lib = torch.library.Library("fuzzspeedups2", "DEF")
    lib.define("noop(Tensor x) -> Tensor")
    op = torch.ops.fuzzspeedups2.noop.default

    def kernel(x):
        return x

    assert op.py_impl(torch._C.DispatchKey.CPU)(kernel) is kernel
    assert op.py_kernels[torch._C.DispatchKey.CPU] is kernel

    def refusal(py_impl) -> str:  # a key that is not a DispatchKey is refused alike
        with pytest.raises(AssertionError) as refused:
            py_impl(op, "CPU")(kernel)
        return str(refused.value)

    assert refusal(recompiled) == refusal(recompiled.__wrapped__)


def test_uninstall_restores_upstream(restore_speedups):
    speedups.install()
    speedups.uninstall()
    assert not hasattr(export_utils._collect_all_valid_cia_ops, "__wrapped__")
    assert not hasattr(torch._ops.OperatorBase.py_impl, "__wrapped__")


def _described(fn) -> tuple:
    """What a kernel or fake rule is, without its identity (upstream makes new closures
    and partials each time): its name, and what it closes over or was given."""
    if isinstance(fn, functools.partial):
        keywords = tuple(sorted((k, _described(v)) for k, v in fn.keywords.items()))
        return ("partial", fn.func.__name__, fn.args, keywords)
    cells = tuple(c.cell_contents for c in getattr(fn, "__closure__", None) or ())
    return (getattr(fn, "__qualname__", repr(fn)), tuple(map(repr, cells)))


def _kernel_state(ops) -> dict:
    """Per op: its Python kernels in order, its dispatch cache, and its fake rule."""
    return {
        op: (
            [(key, _described(fn)) for key, fn in op.py_kernels.items()],
            dict(op._dispatch_cache),
            _described(fake_impls.op_implementations_dict[op])
            if op in fake_impls.op_implementations_dict
            else None,
        )
        for op in ops
    }


def test_the_override_leaves_the_kernels_upstreams_leaves(restore_speedups):
    """Inside `_override_composite_implicit_decomp` and after it, every op of the default
    decomposition table has the kernels, dispatch cache and fake rule upstream gives it."""
    speedups.install()
    assert speedups.upstream_override_is_known(), speedups.skipped  # in effect here
    direct = exported_program._override_composite_implicit_decomp
    assert direct is speedups.override_composite_implicit_decomp_directly
    upstream = speedups.PATCHES.applied["override"][0].original
    table = exported_program._split_decomp_table_to_cia_and_python_decomp(
        torch.export.default_decompositions()
    )[0]
    assert len(table) > 100
    before = _kernel_state(table)
    inside, after = {}, {}
    for name, override in (("upstream", upstream), ("direct", direct)):
        with override(table):
            inside[name] = _kernel_state(table)
        after[name] = _kernel_state(table)
    assert inside["direct"] == inside["upstream"] != before
    assert after["direct"] == after["upstream"]  # dispatch caches cleared alike
    assert [(k, r) for k, _, r in after["direct"].values()] == [
        (k, r) for k, _, r in before.values()
    ]  # the kernels and fake rules are back


FAMILIES_NEEDED = {"branch", "data-dependent", "custom", "number"}


class _CustomOpsFirst:
    """A focus (fuzz.strategies.OpFocus) on the custom ops: a derandomized sample of 40
    drew none of them once the catalogue changed (2026-12-04), and they are the family
    whose fake kernels the decomposition speedups must leave alone."""

    def for_lane(self, lane: str) -> frozenset[str]:
        from fuzz import ops

        return frozenset(op.name for op in ops.CATALOGUE if op.family == "custom")


@pytest.mark.slow
def test_generated_programs_of_every_family_lower_the_same_with_and_without_them(
    restore_speedups,
):
    """Like Thunder's (tests/stacks/thunder/test_thunder_speedups.py): generated EXIR
    programs, exported as the lane exports them, give the same edge graph (or the same
    error) with and without the speedups; the programs cover cond, data-dependent,
    custom-op and number programs."""
    from hypothesis import HealthCheck, Phase, given, settings

    from fuzz.backends.exir.inputs import derive_dims, pick_example
    from fuzz.backends.exir.pipeline import export_program
    from fuzz.strategies import cases
    from fuzz.tensors import copy_args, materialize

    seen: dict[str, int] = {}
    compared = []

    def lowered(ep) -> tuple:
        try:
            return _edge_graph(ep)
        except Exception as e:  # the same refusal either way
            return (type(e).__name__, str(e).splitlines()[0] if str(e) else "")

    @settings(
        max_examples=40,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(lanes=("exir",), focus=_CustomOpsFirst()))
    def check(generated):
        host = [copy_args(c, "cpu") for c in materialize(generated.case, 0, "cpu")]
        dims = derive_dims(generated.case, host)
        example = host[pick_example(host, dims)]

        def exported():  # afresh for each lowering: to_edge leaves state in the ShapeEnv
            return export_program(generated.case.program, example, dims)

        try:
            exported()
        except Exception:
            return  # export itself is not sped up; nothing to compare
        speedups.uninstall()
        stock = lowered(exported())
        speedups.install()
        assert lowered(exported()) == stock, generated.source
        compared.append(generated.source)
        for family in generated.coverage()["families"]:
            seen[family] = seen.get(family, 0) + 1
        seen["number"] = seen.get("number", 0) + generated.coverage()["inputs"].get("number", 0)

    check()
    assert len(compared) >= 15, f"only {len(compared)} programs exported"
    assert FAMILIES_NEEDED <= {f for f, n in seen.items() if n}, seen


def test_a_changed_upstream_keeps_its_own_functions(restore_speedups, monkeypatch):
    """The gate covers every upstream function a speedup reproduces or relies on: with
    digests that do not match, the collection and the override stay upstream's."""
    speedups.uninstall()
    monkeypatch.setitem(speedups.UPSTREAM_SOURCES, "override", frozenset({"0" * 16}))
    monkeypatch.setitem(speedups.UPSTREAM_SOURCES, "collect", frozenset({"0" * 16}))
    override = exported_program._override_composite_implicit_decomp
    collect = export_utils._collect_all_valid_cia_ops
    speedups.install()
    assert exported_program._override_composite_implicit_decomp is override
    assert export_utils._collect_all_valid_cia_ops is collect
    assert set(speedups.skipped) == {"override", "collect"}
    assert speedups.installed_names() == ["py_impl"]
    speedups.uninstall()
    assert not speedups.skipped and not hasattr(torch._ops.OperatorBase.py_impl, "__wrapped__")
