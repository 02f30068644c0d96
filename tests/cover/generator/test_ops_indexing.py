"""Rules of the indexing, sorting and shape ops (fuzz/ops/indexing.py, sorting.py,
shapes.py) that the per-op catalogue tests do not check: writes that are not summed go
through permutation indices (so no element is written twice, which would make the
result depend on write order), index outputs never depend on how ties are broken, and
ops with data-dependent sizes stay out of the Thunder lane."""

from __future__ import annotations

import itertools

import pytest
import sympy
import torch

from fuzz.calls import CallPlan
from fuzz.case import case_from_source
from fuzz.ops import BY_NAME, indexing, shapes, sorting
from fuzz.ops.spec import Picker, Symbols, TensorType, half, quotient
from fuzz.render import render_case
from fuzz.tensors import materialize
from tests.op_programs import EDGE, REGULAR, program_with

MINE = indexing.OPS + sorting.OPS + shapes.OPS
GENES = list(itertools.product(range(3), repeat=3))


def _programs(name):
    for inputs, gene in itertools.product((REGULAR, EDGE), GENES):
        program = program_with(BY_NAME[name], gene, inputs["ranges"])
        if program is not None:
            yield inputs, program


def _index_of(node, operand: torch.Tensor) -> torch.Tensor:
    attrs = dict(node.attrs)
    return eval(attrs["index"].replace("{0}", "x"), {"torch": torch, "x": operand})


@pytest.mark.parametrize("name", ["scatter", "index_put"])
def test_writes_that_are_not_summed_use_permutation_indices(name):
    checked = 0
    for inputs, program in _programs(name):
        (node,) = program.nodes
        dim = dict(node.attrs).get("dim", 0)
        for sizes in inputs["calls"]:
            values = sizes | {"b0": sizes["s1"]}
            shape = program.types[node.args[0]].shape
            x = torch.randn(
                [int(d.subs({s: values[s.name] for s in d.free_symbols})) for d in shape]
            )
            index = _index_of(node, x)
            ramp = torch.arange(x.shape[dim])
            if index.dim() == 1:  # index_put along dim 0
                assert torch.equal(index.sort().values, ramp), (name, node.attrs)
            else:
                expected = ramp.reshape([-1 if i == dim else 1 for i in range(x.dim())])
                assert torch.equal(index.sort(dim).values, expected.expand_as(x)), node.attrs
            checked += 1
    assert checked >= 10


def test_index_outputs_do_not_depend_on_ties():
    for name in ("sort_stable", "argsort"):
        assert "stable=True" in BY_NAME[name].template
    assert "sorted=True" in BY_NAME["unique"].template
    # topk indices only on dtypes whose random inputs do not tie.
    for dtype in ("float16", "bfloat16", "int64", "bool"):
        assert program_with(BY_NAME["topk_indices"], (0,), REGULAR["ranges"], dtype, dtype) is None
    assert program_with(BY_NAME["topk_indices"], (0,), REGULAR["ranges"], "float64")


def test_argsort_indices_are_the_stable_order_on_ties():
    """On tied values (bool, int64 inputs tie all the time) the stable argsort is the
    one order eager and every compiler must agree on; a float32 input gives none."""
    program = program_with(BY_NAME["argsort"], (0, 0), REGULAR["ranges"], "bool", "bool")
    (node,) = program.nodes
    assert dict(node.attrs)["descending"] is False
    x = torch.tensor([[True, False, True, False]])
    order = torch.argsort(x, dim=1, descending=False, stable=True)
    assert order.tolist() == [[1, 3, 0, 2]]


def test_data_dependent_sizes_stay_out_of_thunder():
    seen = set()
    for op in MINE:
        for _, program in _programs(op.name):
            outs = [program.types[v] for v in program.nodes[0].outputs]
            if any(program.symbols.has_unbacked(d) for t in outs for d in t.shape):
                assert "thunder" not in op.lanes, op.name
                seen.add(op.name)
            break
    assert {"unique", "mask_index", "bincount_free", "repeat_interleave_free"} <= seen


def test_multi_output_ops_give_their_output_count_at_every_edge_call():
    for name in ("split", "chunk", "tensor_split", "tensor_split3", "unbind", "sort_stable"):
        for inputs, program in itertools.islice(_programs(name), 6):
            layouts = ("contiguous",) * 4 + ("number",) * 2
            sizes = [s | {"b0": 1, "n0": 2, "n1": 2} for s in inputs["calls"]]
            plans = [CallPlan(tuple(sorted(s.items())), layouts) for s in sizes]
            case = case_from_source(render_case(program, plans), f"count_{name}")
            for args in materialize(case, seed=0):
                assert len(case.program(*args)) == len(program.outputs), name


def test_half_is_offered_only_for_dims_even_at_every_size():
    """`half(d)` (split's halves, chunk's dims that are twice something) holds d / 2 at
    every value of its symbols, and is None for a dim that is odd at some value: the sum
    `s - ceiling(s / 2)` is 1 at s = 2 and 3 (a chunk of it is one piece)."""
    s, t = (sympy.Symbol(n, integer=True, nonnegative=True) for n in ("s0", "s1"))
    dims = [2 * s, s, s - sympy.ceiling(s / 2), 4 * s + 2, 2 * s + 1, 2 * s * t, s * t]
    dims += [2 * sympy.ceiling(s / 2), 2 * s + 2 * t, sympy.Integer(4), sympy.Integer(3)]
    halved = []
    for d in dims:
        h = half(d)
        values = [{s: a, t: b} for a in range(6) for b in range(4)]
        if h is None:
            assert any(int(d.subs(v)) % 2 for v in values), f"{d} is even everywhere"
        else:
            halved.append(d)
            assert all(2 * int(h.subs(v)) == int(d.subs(v)) for v in values), d
    assert len(halved) == 6, halved


def test_quotient_is_offered_only_where_it_divides_at_every_size():
    """`quotient(d, by)` (unflatten's factors, unflatten_by's symbolic ones) holds d / by
    at every value of the symbols, and is None where some value leaves a remainder. The
    fixes-on Thunder campaign of 2026-12-05 drew `v.unflatten(2, (3, v.shape[2] // 3))`
    of a conv2d's output `floor(s/2) + 1` (2 at every call): the old rule divided a sum
    term by term and saw no denominator."""
    s, t = (sympy.Symbol(n, integer=True, nonnegative=True) for n in ("s0", "s1"))
    conv = sympy.floor(s / 2) + 1
    dims = [conv, 3 * sympy.floor(s / 2), 3 * s + 3, s * t, s * t + t, 2 * s + 1, s + t]
    values = [{s: a, t: b} for a in range(1, 8) for b in range(1, 5)]
    offered = []
    for d in dims:
        for by in (2, 3, 4, t):
            q = quotient(d, by)
            if q is None:
                assert any(int(d.subs(v)) % int(sympy.sympify(by).subs(v)) for v in values), (
                    f"{d} by {by} divides everywhere"
                )
            else:
                offered.append((d, by))
                by_at = [sympy.sympify(by).subs(v) for v in values]
                assert all(q.subs(v) * b == d.subs(v) for v, b in zip(values, by_at)), (d, by)
    assert (conv, 3) not in offered and (3 * s + 3, 3) in offered and (s * t + t, t) in offered
    syms = Symbols()
    x = syms.size(3, 4)
    assert 3 not in shapes._factors(sympy.floor(x / 2) + 1)


def test_chunk_never_takes_a_dim_that_is_one_at_some_call():
    """The CI case: x0's dim in 2..3, chunk(x0, 2, 0) gives a second piece of
    s - ceiling(s / 2), 1 at every call; chunk(2) of that is one piece, not two."""
    syms = Symbols()
    s = syms.size(2, 3)
    x0 = TensorType((s,))
    (_, second) = shapes._chunk((x0,), syms, Picker([0] * 8)).outputs
    assert shapes._chunk_dims(x0, syms) == [0]
    assert shapes._chunk_dims(second, syms) == []
