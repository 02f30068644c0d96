"""Tests derived from the op catalogue, one per op (OpInfo style): each op's symbolic
shape rule must agree with what eager PyTorch actually produces, at several sizes."""

from __future__ import annotations

import pytest
import sympy

from fuzz import ops
from fuzz.calls import CallPlan
from fuzz.case import case_from_source
from fuzz.ops.spec import Picker, Symbols, TensorType
from fuzz.program import Node, Program
from fuzz.render import render_case
from fuzz.tensors import materialize


def _inputs_for(op, syms):
    """Small input sets that cover each op's constraints: matching, broadcastable,
    size-1 and matmul-compatible shapes."""
    s0, s1 = syms.size(2, 4), syms.size(3, 5)
    b0 = syms.broadcast(s1)
    return [
        TensorType((s0, s1)),
        TensorType((b0,)),
        TensorType((s1, s0)),
        TensorType((s0, sympy.Integer(1))),
    ]


def _program_with(op, gene=(0, 1, 2, 3)):
    syms = Symbols()
    types = _inputs_for(op, syms)
    candidates = op.operands(types, syms)
    assert candidates, f"{op.name}: no operands among the test inputs"
    pick = Picker(gene)
    args = pick.pick(candidates)
    built = op.build([types[a] for a in args], syms, pick)
    outs = tuple(range(len(types), len(types) + len(built.outputs)))
    node = Node(op.name, args, tuple(built.attrs.items()), outs)
    all_types = tuple(types) + built.outputs
    return Program(tuple(types), (node,), all_types, outs, syms, built.decisions)


@pytest.mark.parametrize("op", ops.CATALOGUE, ids=lambda op: op.name)
@pytest.mark.parametrize("gene", [(0, 0, 0, 0), (1, 2, 3, 1), (3, 1, 0, 2)])
def test_shape_rule_matches_eager(op, gene):
    program = _program_with(op, gene)
    sizes_list = [{"s0": 2, "s1": 3, "b0": 1}, {"s0": 4, "s1": 5, "b0": 5}]
    plans = [
        CallPlan(tuple(sorted(s.items())), ("contiguous",) * program.n_inputs) for s in sizes_list
    ]
    case = case_from_source(render_case(program, plans), f"op_{op.name}")
    for sizes, args in zip(sizes_list, materialize(case, seed=0)):
        outputs = case.program(*args)
        subs = {sympy.Symbol(k, integer=True, nonnegative=True): v for k, v in sizes.items()}
        for value, out in zip(program.outputs, outputs):
            expected = program.types[value].shape
            if any(program.symbols.has_unbacked(d) for d in expected):
                assert out.dim() == len(expected)
                for d, actual in zip(expected, out.shape):  # unbacked dims: within bound
                    if program.symbols.has_unbacked(d):
                        bound = program.symbols.info[d.name].bound.subs(subs)
                        assert 0 <= actual <= int(bound)
                continue
            assert tuple(out.shape) == tuple(int(d.subs(subs)) for d in expected), (
                f"{op.name}: shape rule says {expected} at {sizes}\n{case.source}"
            )


def test_every_family_is_described():
    assert set(ops.FAMILIES) >= {
        "elementwise",
        "broadcast",
        "reduction",
        "matmul",
        "concat",
        "view",
        "inplace",
        "data-dependent",
        "branch",
    }


def test_thunder_ops_exclude_what_thunder_cannot_trace():
    names = {op.name for op in ops.for_lanes(["thunder"])}
    assert "custom_positive" not in names and "cond_shape" not in names
    assert {"add", "if_eq", "add_", "transpose"} <= names
