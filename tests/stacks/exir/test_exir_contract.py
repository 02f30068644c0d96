"""Contract probes: every input dim of a probe is its placeholder's size at the probe's
values, static sizes and plain symbols looked up, compound sizes (2*s) evaluated."""

from __future__ import annotations

import warnings

import sympy
import torch

from fuzz.backends.exir.contract import contract_probes, outside_contract, reason_kind
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


def new_empty_copy(x):
    v = x * 2
    return (v, v.new_empty(v.shape).copy_(v + 1))


def test_the_contract_is_the_one_export_declared_when_the_lowering_specializes_a_dim():
    """to_edge's MemoryFormatOpsPass guards each size of `new_empty` on the example
    (corpus/executorch_empty_dim_order_specializes.py): the ShapeEnv it shares with the
    exported program then reads x's dims as 3 and 4. Read live, the contract would call
    every other size "outside" and those calls would go unchecked; frozen at export, the
    (6, 6) call is inside, and the build says which stage specialized which symbol."""
    b = build(new_empty_copy, (torch.randn(3, 4),), {0: {0: (2, 6), 1: (2, 6)}})
    live = [
        dim_expr(d)
        for d in next(n for n in b.ep.graph.nodes if n.op == "placeholder").meta["val"].shape
    ]
    assert [int(e) for e in live] == [3, 4]  # what the lowering did to the shared ShapeEnv
    assert outside_contract(b.ep, (torch.randn(6, 6),)) is None
    assert outside_contract(b.ep, (torch.randn(7, 6),)) is not None  # the range still holds
    assert sorted(v for v in b.specialized.values()) == ["to_edge", "to_edge"]
    assert sorted(int(k.split("=")[1]) for k in b.specialized) == [3, 4]
    assert {p.kind for p in contract_probes(b.ep, (torch.randn(3, 4),))} >= {"upper", "lower"}


def test_a_lowering_that_keeps_the_dims_dynamic_specializes_nothing():
    b = build(doubled, (torch.randn(3), torch.randn(6), torch.randn(2, 4)), {0: {0: (2, 5)}})
    assert b.specialized == {}
    assert b.static_sizes == {}


def new_empty_of_a_product(x):
    v = x.flatten(1, 2)
    return (v.new_empty((v.shape[1] + 1, 2)).fill_(1.5), v * 2.0, v.new_zeros(v.shape[1]))


def test_a_size_of_several_dims_made_static_is_noted_with_its_op():
    """`new_empty` sized s1*s2 + 1: the guard to_edge adds replaces no symbol, so no dim is
    specialized, but `_empty_dim_order`'s output is (16, 2) at the example (3, 5). The
    build notes that size once, at the stage that made it, with the op's node; new_zeros
    of s1*s2 stays symbolic and is not noted."""
    b = build(new_empty_of_a_product, (torch.randn(6, 3, 5),), {0: {1: (2, 3), 2: (3, 7)}})
    assert b.specialized == {}
    [(size, where)] = b.static_sizes.items()
    assert size.endswith("+ 1=16") and len(sympy.sympify(size.split("=")[0]).free_symbols) == 2
    assert where == "to_edge:dim_order_ops._empty_dim_order.default"
    assert outside_contract(b.ep, (torch.randn(6, 2, 3),)) is None  # the contract is intact


def test_each_reason_a_call_is_outside_the_contract_has_a_kind():
    """The reasons outside_contract and aliased_mutation give, as the report sums them."""
    reasons = {
        "input x1=4, exported as the constant 3": "number",
        "input x0 dim 1 = 1 outside s0 in [2, 6]": "dim-range",
        "input x0 dim 0 = 4, exported static 3": "static-dim",
        "input x1 dim 0 = 5, but s0 = 4 elsewhere": "dim-relation",
        "input x0.shape[0] * 2 = 6, but s1 = 5": "dim-relation",
        "fails the export guard x.size()[0] != 3": "guard",
        "inputs 0 and 1 share memory and the program mutates an input": "aliased-mutation",
        "input x1 is int, exported as a tensor": "input-type",
        "input x0: torch.int64 rank 2, exported torch.float32 rank 2": "input-type",
        "3 input leaves, the program takes 2": "input-count",
    }
    for why, kind in reasons.items():
        assert reason_kind(why) == kind, why
    assert reason_kind("something new") == "other"
