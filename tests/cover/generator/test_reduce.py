"""The 1-minimal reduction after Hypothesis's shrink (fuzz.reduce): it removes every op and
input the divergence does not need, keeps the program valid, and returns only when no
single removal keeps the divergence."""

from __future__ import annotations

from fuzz.backends.eager import run_eager
from fuzz.calls import plan_sequence
from fuzz.ops import BY_NAME
from fuzz.program import Genome, decode
from fuzz.reduce import reduce_program, without_input, without_op
from fuzz.render import render_program
from fuzz.strategies import make_case
from fuzz.tensors import materialize

OPS = [BY_NAME[n] for n in ("neg", "sin", "abs")]


def _program(op_genes, inputs=((0,),)):
    # Gene (0, g, 0): the one family, its op g, the latest value as operand (a chain).
    program = decode(Genome(inputs=inputs, ops=tuple((0, g, 0) for g in op_genes)), OPS)
    return program, plan_sequence(program, [(0,), (1,)], ["preserve"])


def _needs_sin(program, plans):
    return "torch.sin(" in render_program(program)


def test_reduction_keeps_only_the_op_the_divergence_needs():
    program, plans = _program([0, 1, 2, 0, 0, 2])  # neg, sin, abs, neg, neg, abs (chained)
    assert [n.op for n in program.nodes] == ["neg", "sin", "abs", "neg", "neg", "abs"]
    reduced, calls, minimal = reduce_program(program, plans, _needs_sin)
    assert minimal and [n.op for n in reduced.nodes] == ["sin"]
    # 1-minimal: no single op or input can be removed and keep the divergence.
    for k in range(len(reduced.nodes)):
        candidate = without_op(reduced, k)
        assert candidate is None or not _needs_sin(candidate, calls)
    for j in range(reduced.n_inputs):
        assert without_input(reduced, calls, j) is None
    # The reduced case is a valid program: eager runs every call.
    case = make_case(reduced, calls).case
    assert all(r.error is None for r in run_eager(case, materialize(case, 0)))


def test_unused_inputs_go_and_calls_lose_their_arguments():
    program, plans = _program([1], inputs=((0,), (0,), (0,)))  # sin of one of three inputs
    assert program.n_inputs == 3 and len(program.used_inputs()) == 1
    reduced, calls, minimal = reduce_program(program, plans, _needs_sin)
    assert minimal and reduced.n_inputs == 1
    assert all(len(p.layouts) == 1 for p in calls)
    case = make_case(reduced, calls).case
    assert [len(args) for args in materialize(case, 0)] == [1, 1]


def test_reduction_stops_when_told_and_says_it_is_not_minimal():
    program, plans = _program([0, 1, 2])
    reduced, _, minimal = reduce_program(program, plans, _needs_sin, give_up=lambda: True)
    assert not minimal and reduced is program
