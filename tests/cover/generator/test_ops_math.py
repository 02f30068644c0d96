"""Rules of the math, compare and layout ops that the catalogue-wide tests do not state:
no op makes a NaN or an infinity on any input (every divisor is non-zero and every log,
sqrt and pow argument is in range by construction, not by luck of the random values),
and integer division never raises, even on operands that are all zero."""

from __future__ import annotations

import itertools

import pytest
import torch

from fuzz.calls import CallPlan
from fuzz.case import case_from_source
from fuzz.ops import compare, layout, math
from fuzz.ops.spec import NumberType
from fuzz.render import render_case
from fuzz.tensors import materialize
from tests.op_programs import EDGE, REGULAR, call_sizes, program_with

OPS = math.OPS + compare.OPS + layout.OPS
GENES = [(1, 2, 3, 1), (2, 3, 1, 0)]
# A dtype pair of each kind (the catalogue tests run every pair already).
DTYPE_PAIRS = [
    ("float32", "float32"),
    ("int64", "int64"),
    ("float16", "bool"),
    ("bool", "int64"),
    ("bfloat16", "float64"),
    ("int64", "float32"),
]
FILLS = {
    "random": None,
    "zeros": lambda t: torch.zeros_like(t),
    "negative": lambda t: torch.full_like(t, -3) if t.dtype != torch.bool else t,
}


def _programs(op):
    for (dtype_a, dtype_b), gene in itertools.product(DTYPE_PAIRS, GENES):
        for inputs in (REGULAR, EDGE):
            program = program_with(op, gene, inputs["ranges"], dtype_a, dtype_b)
            if program is not None:
                yield program, inputs


def _outputs(op, program, inputs, fill):
    sizes_list = call_sizes(inputs)
    layouts = tuple(
        "number" if isinstance(t, NumberType) else "contiguous" for t in program.input_types
    )
    plans = [CallPlan(tuple(sorted(s.items())), layouts) for s in sizes_list]
    case = case_from_source(render_case(program, plans), f"op_{op.name}")
    for args in materialize(case, seed=0):
        if fill is not None:
            args = tuple(fill(a) if isinstance(a, torch.Tensor) else a for a in args)
        yield case.source, case.program(*args)


@pytest.mark.parametrize("fill", sorted(FILLS))
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_no_nan_or_inf_and_no_division_error(op, fill):
    checked = 0
    for program, inputs in _programs(op):
        for source, outputs in _outputs(op, program, inputs, FILLS[fill]):
            for out in outputs:
                if out.dtype.is_floating_point:
                    assert bool(torch.isfinite(out).all()), f"{op.name} ({fill}):\n{source}"
            checked += 1
    assert checked, f"{op.name}: no program"


def test_division_ops_divide_by_a_tensor_that_may_hold_zero():
    """The guard above is not vacuous: the division ops' divisor operand is a tensor that
    holds zeros under the "zeros" fill, which would raise for int64 without the
    non-zero construction."""
    divisions = [op for op in math.OPS if "{divisor}" in op.template or "% (" in op.template]
    assert {"div", "div_floor", "div_trunc", "remainder", "fmod"} <= {op.name for op in divisions}
    with pytest.raises(RuntimeError, match="ZeroDivisionError|division by zero"):
        torch.div(
            torch.ones(2, dtype=torch.int64),
            torch.zeros(2, dtype=torch.int64),
            rounding_mode="floor",
        )


DIVISION_OPS = [op for op in math.OPS if "{divisor}" in op.template]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_the_divisors_are_never_zero_and_one_has_the_other_sign(dtype):
    """`x // NONZERO(x)` has only non-negative quotients, so the division ops also draw
    a divisor of the other sign: one value divided by itself reaches negative ones."""
    x = torch.tensor([-4, -1, 0, 1, 3]).to(getattr(torch, dtype))
    same, other = (eval(d.replace("{1}", "x"), {"torch": torch, "x": x}) for d in math.DIVISORS)
    assert bool((same != 0).all()) and bool((other != 0).all())
    assert bool((x * same >= 0).all()) and bool((x * other <= 0).all())
    assert bool((torch.sign(same) == -torch.sign(other)).all())


@pytest.mark.parametrize("op", DIVISION_OPS, ids=lambda op: op.name)
def test_each_division_op_draws_both_divisors(op):
    drawn = set()
    for gene in [(k,) * 4 for k in range(4)]:
        program = program_with(op, gene, REGULAR["ranges"])
        drawn.add(dict(program.nodes[0].attrs)["divisor"])
    assert drawn == set(math.DIVISORS), op.name
