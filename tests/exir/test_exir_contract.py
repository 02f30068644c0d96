"""Contract probes: every input dim of a probe is its placeholder's size at the probe's
values, static sizes and plain symbols looked up, compound sizes (2*s) evaluated."""

from __future__ import annotations

import warnings

import torch

from fuzz.backends.exir.contract import contract_probes, outside_contract
from fuzz.backends.exir.graph import dim_expr
from fuzz.backends.exir.pipeline import build

warnings.filterwarnings("ignore")


def doubled(x, y, z):
    return torch.cat([x, x]) + y, z * 2


def test_probes_resize_compound_and_static_dims_with_their_symbol():
    example = (torch.randn(3), torch.randn(6), torch.randn(2, 4))
    b = build(doubled, example, {0: {0: (2, 5)}, 1: {0: (4, 10)}})
    shapes = [tuple(n.meta["val"].shape) for n in b.ep.graph.nodes if n.op == "placeholder"]
    compound = dim_expr(shapes[1][0])  # 2*s: neither a symbol nor a number
    assert not compound.is_Symbol and not compound.is_Integer and shapes[2] == (2, 4)
    probes = {p.kind: p for p in contract_probes(b.ep, example)}
    assert [tuple(a.shape) for a in probes["upper"].args] == [(6,), (12,), (2, 4)]
    assert [tuple(a.shape) for a in probes["lower"].args] == [(1,), (2,), (2, 4)]
    assert probes["upper"].args[2] is example[2]  # a dim that does not change: as given
    for p in probes.values():
        assert outside_contract(b.ep, p.args) is not None
