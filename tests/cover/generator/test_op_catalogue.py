"""Tests derived from the op catalogue, one per op (OpInfo style): each op's symbolic
shape rule (output shapes *and* dtypes) must agree with what eager PyTorch produces, at
several sizes, for every dtype combination the op accepts, and on dims that are empty or
1 at some calls where the op accepts them."""

from __future__ import annotations

import itertools

import pytest
import torch

from fuzz import ops
from fuzz.case import case_from_source
from fuzz.ops import dtypes, reductions_multi
from fuzz.render import render_case
from fuzz.tensors import materialize
from tests.op_programs import DTYPE_PAIRS, EDGE, REGULAR, call_plans, call_sizes, program_with


def _check_against_eager(op, program, sizes_list):
    case = case_from_source(render_case(program, call_plans(sizes_list)), f"op_{op.name}")
    for sizes, args in zip(sizes_list, materialize(case, seed=0)):
        outputs = case.program(*args)
        for value, out in zip(program.outputs, outputs):
            expected = program.types[value]
            where = f"{op.name} at {sizes}\n{case.source}"
            assert str(out.dtype) == f"torch.{expected.dtype}", f"dtype rule: {where}"
            if any(program.symbols.has_unbacked(d) for d in expected.shape):
                assert out.dim() == len(expected.shape)
                for d, actual in zip(expected.shape, out.shape):  # unbacked dims: within bound
                    if program.symbols.has_unbacked(d):
                        bound = program.symbols.info[d.name].bound
                        bound = bound.subs({s: sizes[s.name] for s in bound.free_symbols})
                        assert 0 <= actual <= int(bound)
                continue
            subs = {s: sizes[s.name] for d in expected.shape for s in d.free_symbols}
            assert tuple(out.shape) == tuple(int(d.subs(subs)) for d in expected.shape), (
                f"shape rule says {expected.shape}: {where}"
            )


@pytest.mark.parametrize("op", ops.CATALOGUE, ids=lambda op: op.name)
@pytest.mark.parametrize("gene", [(0, 0, 0, 0), (1, 2, 3, 1), (3, 1, 0, 2)])
def test_shape_rule_matches_eager(op, gene):
    # Ops for programs with a tensor that may be empty (e.g. add_empty) take the EDGE set.
    inputs = REGULAR if program_with(op, gene, REGULAR["ranges"]) is not None else EDGE
    program = program_with(op, gene, inputs["ranges"])
    assert program is not None, f"{op.name}: no operands among the float32 test inputs"
    _check_against_eager(op, program, call_sizes(inputs))


@pytest.mark.parametrize("op", ops.CATALOGUE, ids=lambda op: op.name)
def test_dtype_rule_matches_eager_for_every_accepted_dtype(op):
    """Every dtype pair the op's operand constraint accepts runs in eager and gives the
    dtype its rule states (torch's promotion); float32 is always accepted."""
    accepted = []
    gene = (1, 2, 3, 1)
    inputs = REGULAR if program_with(op, gene, REGULAR["ranges"]) is not None else EDGE
    for dtype_a, dtype_b in DTYPE_PAIRS:
        program = program_with(op, gene, inputs["ranges"], dtype_a, dtype_b)
        if program is not None:
            accepted.append((dtype_a, dtype_b))
            _check_against_eager(op, program, call_sizes(inputs))
    assert ("float32", "float32") in accepted


def test_ops_take_more_dtypes_than_float32():
    takes = {
        d: [
            op.name
            for op in ops.CATALOGUE
            if program_with(op, (0,), REGULAR["ranges"], d, d) is not None
        ]
        for d in dtypes.ALL
    }
    for d, names in takes.items():
        assert len(names) >= 20, f"{d}: only {names}"
    assert "mean" not in takes["int64"] and "neg" not in takes["bool"]


def test_ops_that_accept_possibly_empty_dims_are_right_about_it():
    """With dims that are 0 or 1 at some calls, every op that still accepts operands
    must run and follow its rules; the ops whose eager semantics fail on an empty dim
    (mean/amax over it, select, ...) must not pick such a dim."""
    accepted = []
    for op in ops.CATALOGUE:
        for gene in [(0, 0, 0, 0), (1, 2, 3, 1), (3, 1, 0, 2)]:
            program = program_with(op, gene, EDGE["ranges"])
            if program is not None:
                accepted.append(op.name)
                _check_against_eager(op, program, call_sizes(EDGE))
    missing = set(ops.BY_NAME) - set(accepted)
    # The reductions over several dims that eager leaves undefined on an empty dim (mean,
    # amax, var, ...) take two dims that are never empty, and every input here has a dim
    # that can be empty (s0) or only one such dim (test_ops_reduce.py covers them).
    several = {name for name in missing if name.endswith("_dims")}
    assert several <= {op.name for op in reductions_multi.OPS}, several
    assert len(missing - several) <= 5, missing
    # mean over an empty dim is nan, not an error: check the dims these ops pick.
    for name in ("mean", "amax", "select"):
        for gene in itertools.product(range(4), repeat=2):
            program = program_with(ops.BY_NAME[name], gene, EDGE["ranges"])
            (node,) = program.nodes
            operand = program.types[node.args[0]]
            dim = dict(node.attrs)["dim"]
            assert program.symbols.at_least_one(operand.shape[dim]), (name, gene)


def test_promotion_rules_are_torchs():
    for a, b in itertools.product(dtypes.ALL, dtypes.ALL):
        ta, tb = getattr(torch, a), getattr(torch, b)
        assert str(torch.promote_types(ta, tb)) == f"torch.{dtypes.promote(a, b)}", (a, b)
        assert torch.can_cast(torch.promote_types(ta, tb), ta) == dtypes.can_cast(
            dtypes.promote(a, b), a
        )
        for scalar, value in (("int", 2), ("float", 2.5)):
            got = (torch.ones(2, dtype=ta) * value).dtype
            assert str(got) == f"torch.{dtypes.with_scalar(a, scalar)}", (a, scalar)


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
        "number",
        "custom",
    }


def test_thunder_ops_exclude_what_thunder_cannot_trace():
    names = {op.name for op in ops.for_lanes(["thunder"])}
    assert "custom_positive" not in names and "cond_shape" not in names
    # Known Thunder 0.2.6 crashes under symbolic values (corpus_new/): EXIR only.
    assert "lookup_tuple" not in names and "math_round" not in names
    assert {"add", "if_eq", "add_", "transpose", "custom_head", "custom_bmul"} <= names
    assert {"if_number", "new_zeros_number", "slice_number", "math_number"} <= names
