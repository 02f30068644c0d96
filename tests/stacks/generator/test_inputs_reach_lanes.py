"""Every new input kind reaches both lanes, through the real lanes (not only drawn):
number inputs (an int used as a size and a slice bound, a scalar that turns from int to
float between calls), every input dtype, and empty dims. The programs are built from the
catalogue and rendered like generated cases, then run by `fuzz.case_runner.run_case`."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from fuzz import ops
from fuzz.calls import CallPlan
from fuzz.case_runner import run_case
from fuzz.ops import dtypes
from fuzz.ops.spec import NumberType, Picker, Symbols, TensorType
from fuzz.program import Node, Program
from fuzz.strategies import make_case
from fuzz.tensors import materialize

LANES = ("thunder", "exir")


def build(inputs, steps, syms, outputs=None) -> Program:
    """A program of catalogue ops: `steps` are (op name, operand value ids)."""
    types = [
        dataclasses.replace(t, root=i) if isinstance(t, TensorType) else t
        for i, t in enumerate(inputs)
    ]
    nodes, decisions = [], []
    for name, args in steps:
        op = ops.BY_NAME[name]
        assert args in op.operands(types, syms), (name, args)
        built = op.build([types[a] for a in args], syms, Picker((0,)))
        out_ids = tuple(range(len(types), len(types) + len(built.outputs)))
        types.extend(built.outputs)
        nodes.append(Node(name, args, tuple(built.attrs.items()), out_ids))
        decisions.extend(built.decisions)
    outs = tuple(outputs or range(len(inputs), len(types)))
    return Program(tuple(inputs), tuple(nodes), tuple(types), outs, syms, tuple(decisions))


def plans_for(program, sizes_list):
    layouts = tuple(
        "number" if isinstance(t, NumberType) else "contiguous" for t in program.input_types
    )
    return [CallPlan(tuple(sorted(s.items())), layouts) for s in sizes_list]


def run(program, sizes_list, lane):
    generated = make_case(program, plans_for(program, sizes_list), lane=lane)
    result = run_case(generated.case, lanes=(lane,), devices=("cpu",))
    (report,) = result.reports
    return generated, result, report


def assert_reached(lane, report, result, n_calls, source):
    assert report.skipped is None, f"{report.skipped}\n{source}"
    if lane == "thunder":
        # Every call ran through the jitted function (a cache hit or a miss).
        assert report.counters["hits"] + report.counters["misses"] == n_calls, report.counters
        assert not result.divergences, [str(d) for d in result.divergences]
    else:
        # Exported, planned and run on the ExecuTorch runtime for the calls in its contract.
        assert report.details["runtime"] == "pip runtime", report.details["runtime"]
        assert report.counters["calls-checked"] >= 1, report.counters
        assert not [d for d in result.divergences if d.kind != "exir.unchecked-contract"], [
            str(d) for d in result.divergences
        ]


def number_program():
    syms = Symbols()
    x = TensorType((syms.size(2, 6), syms.size(2, 4)))
    n = NumberType(syms.number(0, 4, "int"), "int")
    s = NumberType(syms.number(1, 3, "scalar"), "scalar")
    steps = [
        ("slice_number", (0, 1)),  # x[:n]: n is a slice bound
        ("mul_number", (3, 2)),  # * s: s is a scale
        ("new_zeros_number", (0, 1)),  # x.new_zeros((n,)): n is a size
        ("math_number", (0, 2)),  # x * math.sqrt(s): Python reads s
    ]
    return build([x, n, s], steps, syms, outputs=(4, 5, 6))


@pytest.mark.parametrize("lane", LANES)
def test_number_inputs_reach_the_lane(lane):
    program = number_program()
    # s is an int, then the same value as a float (Thunder only: see below), then another
    # float; n changes too.
    calls = [
        {"s0": 4, "s1": 3, "n0": 2, "n1": 2},
        {"s0": 4, "s1": 3, "n0": 2, "n1": 2.0},
        {"s0": 4, "s1": 3, "n0": 2, "n1": 2.5},
        {"s0": 5, "s1": 3, "n0": 0, "n1": 2.5},
    ]
    if lane == "exir":
        # The EXIR lane takes 2.0 for the exported constant 2 as inside the contract (the
        # export guard accepts it) and the runtime refuses the float: exir.crash until the
        # lane counts another number type as outside the contract (reported, not ours).
        del calls[1]
    generated, result, report = run(program, calls, lane)
    args = materialize(generated.case, 0)
    assert [type(a[2]) for a in args] == [int] + [float] * (len(calls) - 1)
    assert_reached(lane, report, result, len(calls), generated.source)
    if lane == "thunder":
        # Each new number type or value that changes a decision is a miss, with the fixes
        # (which type-check numbers); the stock cache would hit the int entry.
        assert report.counters["misses"] >= 1
    else:
        # Export specializes numbers: other values are outside the exported contract.
        outside = report.details["outside_contract"]
        assert any("exported as the constant" in why for why in outside), outside


def dtype_program():
    """One input per dtype, each summed (bool and int64 sum to int64); int64 + bool, a
    float scale of bool and the maximum of two bools."""
    syms = Symbols()
    s0 = syms.size(2, 5)
    inputs = [TensorType((s0, sympy.Integer(3)), d) for d in dtypes.ALL]
    steps = [("sum", (i,)) for i in range(len(inputs))]
    steps.append(("add", (dtypes.ALL.index("int64"), dtypes.ALL.index("bool"))))
    steps.append(("scale", (dtypes.ALL.index("bool"),)))
    steps.append(("maximum", (dtypes.ALL.index("bool"),) * 2))
    return build(inputs, steps, syms)


@pytest.mark.parametrize("lane", LANES)
def test_every_dtype_reaches_the_lane(lane):
    program = dtype_program()
    generated, result, report = run(program, [{"s0": 3}, {"s0": 5}], lane)
    args = materialize(generated.case, 0)
    assert {str(a.dtype) for a in args[0]} == {f"torch.{d}" for d in dtypes.ALL}
    outputs = [str(program.types[v].dtype) for v in program.outputs]
    assert {"int64", "bool", "float16", "bfloat16", "float64"} <= set(outputs)
    assert_reached(lane, report, result, 2, generated.source)


def empty_program():
    syms = Symbols()
    x = TensorType((syms.size(0, 4), sympy.Integer(3)))
    n = NumberType(syms.number(0, 3, "int"), "int")
    steps = [
        ("sum", (0,)),  # the sum over an empty dim is 0
        ("add", (0, 0)),
        ("new_zeros_number", (0, 1)),  # an empty intermediate when n == 0
    ]
    return build([x, n], steps, syms)


@pytest.mark.parametrize("lane", LANES)
def test_empty_dims_reach_the_lane(lane):
    program = empty_program()
    calls = [{"s0": 0, "n0": 0}, {"s0": 3, "n0": 0}, {"s0": 0, "n0": 2}, {"s0": 2, "n0": 0}]
    generated, result, report = run(program, calls, lane)
    args = materialize(generated.case, 0)
    assert args[0][0].shape == (0, 3) and args[2][0].shape == (0, 3)
    assert_reached(lane, report, result, len(calls), generated.source)
    if lane == "exir":
        # Export specializes a dim of size 0 or 1, so the lane exports a call with s0 >= 2
        # (where n == 0 gives an empty planned intermediate) and judges calls with an empty
        # input dim to be outside the exported contract.
        assert report.details["example_call"] == 1
        outside = report.details["outside_contract"]
        assert any("dim 0 = 0" in why for why in outside), outside
