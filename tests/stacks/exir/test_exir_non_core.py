"""lower_to_edge allows an operator outside Core ATen as its error suggests; with the
speedups on, the operators allowed for earlier programs are allowed from the first try,
which changes how many times to_edge runs, never what it builds."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export

pytest.importorskip("executorch.exir")

from fuzz.backends.exir import pipeline  # noqa: E402


class MaskedSelect(torch.nn.Module):  # aten.masked_select is not in Core ATen
    def forward(self, x):
        return torch.masked_select(x, x > 0).sum() + x.sum()


def _exported():
    return export(MaskedSelect(), (torch.randn(4, 3),), dynamic_shapes=({0: Dim("n", max=9)},))


@pytest.fixture
def counted_to_edge(monkeypatch):
    """to_edge, counting its calls; the process's remembered operators emptied."""
    monkeypatch.setattr(pipeline, "_ALLOWED_NON_CORE", [])
    calls = []
    real = pipeline.to_edge

    def to_edge(*args, **kwargs):
        calls.append(kwargs["compile_config"]._core_aten_ops_exception_list)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "to_edge", to_edge)
    return calls


def _code(edge) -> str:
    return edge.exported_program().graph_module.code


def test_with_the_speedups_an_allowed_operator_is_allowed_from_the_first_try(
    counted_to_edge, monkeypatch
):
    monkeypatch.setenv("FUZZ_SPEEDUPS", "on")
    masked_select = torch.ops.aten.masked_select.default
    first = pipeline.lower_to_edge(_exported())
    assert counted_to_edge == [[], [masked_select]]  # refused, then allowed
    second = pipeline.lower_to_edge(_exported())
    assert counted_to_edge[2:] == [[masked_select]]  # one try
    assert _code(second) == _code(first)


def test_without_the_speedups_each_program_learns_its_own(counted_to_edge, monkeypatch):
    monkeypatch.setenv("FUZZ_SPEEDUPS", "off")
    pipeline.lower_to_edge(_exported())
    pipeline.lower_to_edge(_exported())
    assert [len(allowed) for allowed in counted_to_edge] == [0, 1, 0, 1]
    assert pipeline._ALLOWED_NON_CORE == []


def test_an_operator_refused_while_allowed_is_unsupported_at_once(counted_to_edge, monkeypatch):
    """A refusal that allowing cannot cure ends the tries instead of repeating them."""
    from torch._export.verifier import SpecViolationError

    monkeypatch.setenv("FUZZ_SPEEDUPS", "on")

    def always_refused(*args, **kwargs):
        counted_to_edge.append(kwargs["compile_config"]._core_aten_ops_exception_list)
        raise SpecViolationError(
            "Operator torch._ops.aten.masked_select.default is not in Core ATen opset"
        )

    monkeypatch.setattr(pipeline, "to_edge", always_refused)
    with pytest.raises(pipeline.Unsupported, match="masked_select"):
        pipeline.lower_to_edge(_exported())
    assert len(counted_to_edge) == 2


class Bincount(torch.nn.Module):  # aten.bincount: not Core ATen, and an unbacked size
    def forward(self, x):
        return (torch.bincount(x.reshape(-1).long().abs().clamp(max=7)),)


def test_a_retry_does_not_see_the_unbacked_symbols_of_the_try_that_failed(monkeypatch):
    """Copies of a program share its ShapeEnv; the refused first try leaves the unbacked
    symbols of its decompositions pending there. Without putting them back, the retry
    through to_edge_transform_and_lower raised PendingUnbackedSymbolNotFound."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    monkeypatch.setenv("FUZZ_SPEEDUPS", "off")
    ep = export(Bincount(), (torch.randn(4, 3),), dynamic_shapes=({0: Dim("n", max=9)},))
    tries = []

    def convert(program, config):
        tries.append(config._core_aten_ops_exception_list)
        return to_edge_transform_and_lower(
            program, partitioner=[XnnpackPartitioner()], compile_config=config
        )

    edge = pipeline.lower_to_edge(ep, convert=convert)
    assert tries == [[], [torch.ops.aten.bincount.default]]
    assert "aten_bincount_default" in _code(edge)
