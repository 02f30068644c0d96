"""fuzz/backends/exir/speedups.py changes how fast to_edge runs, never what it builds."""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
import torch._export.utils as export_utils
import torch._ops
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
