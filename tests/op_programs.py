"""One-op programs over fixed inputs: each catalogue op on its own, with the sizes and
numbers of a few calls (the catalogue tests, tests/cover/generator/test_op_catalogue.py,
and the per-lane op checks use them)."""

from __future__ import annotations

import itertools

import sympy

from fuzz.calls import CallPlan
from fuzz.case import Case, case_from_source
from fuzz.ops import dtypes
from fuzz.ops.spec import NumberType, OpSpec, Picker, Symbols, TensorType
from fuzz.program import Node, Program
from fuzz.render import render_case

GENES = [(0, 0, 0, 0), (1, 2, 3, 1), (3, 1, 0, 2)]

# Two test input sets: regular sizes (>= 2), and sizes that are empty or 1 at some calls.
REGULAR = {"ranges": ((2, 4), (3, 5)), "calls": [{"s0": 2, "s1": 3}, {"s0": 4, "s1": 5}]}
EDGE = {
    "ranges": ((0, 4), (1, 5)),
    "calls": [{"s0": 0, "s1": 1}, {"s0": 3, "s1": 1}, {"s0": 0, "s1": 5}, {"s0": 4, "s1": 5}],
}
# Per call: b0 (1 or s1), and the numbers n0 (int in [0, 4]) and n1 (scalar in [1, 3]).
EXTRA = [
    {"b0": 1, "n0": 3, "n1": 2.5},
    {"b0": "s1", "n0": 0, "n1": 2},
    {"b0": 1, "n0": 4, "n1": 3.0},
    {"b0": "s1", "n0": 1, "n1": 1},
]
DTYPE_PAIRS = [("float32", "float32")] + [
    (a, b) for a, b in itertools.product(dtypes.ALL, dtypes.ALL) if (a, b) != ("float32",) * 2
]


def input_types(syms, ranges, dtype_a="float32", dtype_b="float32"):
    """Inputs that cover each op's constraints: matching, broadcastable, size-1 and
    matmul-compatible shapes, and one int and one scalar number."""
    (lo0, hi0), (lo1, hi1) = ranges
    s0, s1 = syms.size(lo0, hi0), syms.size(lo1, hi1)
    b0 = syms.broadcast(s1)
    return [
        TensorType((s0, s1), dtype_a),
        TensorType((b0,), dtype_b),
        TensorType((s1, s0), dtype_a),
        TensorType((s0, sympy.Integer(1)), dtype_b),
        NumberType(syms.number(0, 4, "int"), "int"),
        NumberType(syms.number(1, 3, "scalar"), "scalar"),
    ]


def program_with(op, gene, ranges, dtype_a="float32", dtype_b="float32"):
    syms = Symbols()
    types = input_types(syms, ranges, dtype_a, dtype_b)
    candidates = op.operands(types, syms)
    if not candidates:
        return None
    pick = Picker(gene)
    args = pick.pick(candidates)
    built = op.build([types[a] for a in args], syms, pick)
    outs = tuple(range(len(types), len(types) + len(built.outputs)))
    node = Node(op.name, args, tuple(built.attrs.items()), outs)
    all_types = tuple(types) + built.outputs
    return Program(tuple(types), (node,), all_types, outs, syms, built.decisions)


def call_sizes(inputs_set):
    """The sizes and numbers of each call of `inputs_set` (REGULAR or EDGE)."""
    out = []
    for k, sizes in enumerate(inputs_set["calls"]):
        extra = dict(EXTRA[k % len(EXTRA)])
        extra["b0"] = sizes["s1"] if extra["b0"] == "s1" else 1
        out.append(sizes | extra)
    return out


def one_op_case(op: OpSpec, gene, lane: str, inputs=REGULAR) -> Case | None:
    """`op` alone (its operands picked by `gene`) over the calls of `inputs`, for `lane`;
    None where the op takes none of the inputs."""
    program = program_with(op, gene, inputs["ranges"])
    if program is None:
        return None
    source = render_case(program, call_plans(call_sizes(inputs)), lanes=(lane,))
    return case_from_source(source, f"op_{op.name}")


def call_plans(sizes_list) -> list[CallPlan]:
    """One plan per call's sizes: the four tensors contiguous, the two numbers as numbers."""
    return [
        CallPlan(tuple(sorted(s.items())), ("contiguous",) * 4 + ("number",) * 2)
        for s in sizes_list
    ]
