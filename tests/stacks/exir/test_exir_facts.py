"""The EXIR lane's ops fact says what each node made: the dtype tags a registered kernel
bug of one dtype is recognised by (fuzz/facts.py), wherever the program made that dtype."""

from __future__ import annotations

import torch

from fuzz.facts import graph_ops


def _ops(fn, *args) -> list[str]:
    class M(torch.nn.Module):
        def forward(self, *a):
            return fn(*a)

    return graph_ops([torch.export.export(M(), args).graph_module])


def test_every_tensor_a_node_makes_is_tagged_with_its_dtype():
    ops = _ops(lambda x: torch.remainder(torch.topk(x, 2, dim=0)[1], -3), torch.randn(4, 3))
    assert "aten.topk.default:float32" in ops and "aten.topk.default:int64" in ops
    assert "aten.remainder.Scalar:int64" in ops
    assert not any(op.startswith("aten.remainder.Scalar:float") for op in ops)


def test_a_float_remainder_is_not_tagged_integer():
    ops = _ops(lambda x: (x.double() % 3.0,), torch.randn(3))
    assert "aten.remainder.Scalar:float64" in ops
    assert not any(op.startswith("aten.remainder.Scalar:int") for op in ops)
