"""Rules of the reduction, norm and linalg ops (fuzz/ops/reductions_multi.py, norms.py,
linalg.py) that the per-op catalogue tests do not state: index outputs only from float
operands, max-like reductions never on an operand that may be empty (ExecuTorch 1.5.1
aborts the process), var/std never on fewer elements than their correction needs, and
no nan or inf from any of them on the sizes the generator may draw."""

from __future__ import annotations

import itertools

import pytest
import sympy
import torch

from fuzz import ops
from fuzz.calls import CallPlan
from fuzz.case import case_from_source
from fuzz.ops import dtypes, linalg, norms, reductions_multi
from fuzz.ops.spec import Picker, Symbols, TensorType
from fuzz.program import Node, Program
from fuzz.render import render_case
from fuzz.tensors import materialize

MINE = reductions_multi.OPS + norms.OPS + linalg.OPS
INDEX_OPS = ("argmax", "argmin", "argmax_all", "argmin_all")
# ExecuTorch 1.5.1 aborts on amax/amin of an empty operand; eager refuses argmax/argmin
# of no element at all.
MAX_LIKE = ("amin", "amax_dims", "amin_dims", "argmax_all", "argmin_all")
GENES = list(itertools.product(range(4), repeat=3))


def _operands(dtype="float32"):
    """Tensors whose dims are empty at some calls (s0), 1 at some (s1, b0), or >= 2 (s2)."""
    syms = Symbols()
    s0, s1, s2 = syms.size(0, 4), syms.size(1, 5), syms.size(2, 3)
    b0 = syms.broadcast(s1)
    shapes = [
        (s0, s1),
        (s1, s2),
        (b0, s2, s1),
        (s2,),
        (s1, sympy.Integer(1)),
        (s0, s2, s2),
        (s2, s1),
    ]
    return syms, [TensorType(shape, dtype) for shape in shapes]


def _programs(op, dtype="float32"):
    for gene in GENES:
        syms, types = _operands(dtype)
        for args in op.operands(types, syms):
            built = op.build([types[a] for a in args], syms, Picker(gene))
            outs = tuple(range(len(types), len(types) + len(built.outputs)))
            node = Node(op.name, args, tuple(built.attrs.items()), outs)
            all_types = tuple(types) + built.outputs
            yield Program(tuple(types), (node,), all_types, outs, syms, built.decisions)


def test_the_catalogue_has_the_new_ops():
    assert len(MINE) >= 30
    assert {op.name for op in MINE} <= set(ops.BY_NAME)


@pytest.mark.parametrize("name", INDEX_OPS)
def test_index_outputs_only_come_from_float_operands(name):
    op = ops.BY_NAME[name]
    for dtype in dtypes.ALL:
        syms, types = _operands(dtype)
        assert bool(op.operands(types, syms)) == dtypes.is_float(dtype), (name, dtype)


@pytest.mark.parametrize("name", MAX_LIKE)
def test_max_like_reductions_never_meet_an_operand_that_may_be_empty(name):
    op = ops.BY_NAME[name]
    syms, types = _operands()
    accepted = op.operands(types, syms)
    assert accepted, name
    for (i,) in accepted:
        assert all(syms.at_least_one(d) for d in types[i].shape), (name, types[i].shape)


@pytest.mark.parametrize("name", ["argmax", "argmin", "mean_dims", "logsumexp_dims"])
def test_reductions_undefined_on_nothing_never_reduce_a_dim_that_may_be_empty(name):
    for program in _programs(ops.BY_NAME[name]):
        (node,) = program.nodes
        attrs = dict(node.attrs)
        shape = program.types[node.args[0]].shape
        dims = attrs.get("dims", attrs.get("dim"))
        dims = range(len(shape)) if dims is None else dims
        for d in [dims] if isinstance(dims, int) else dims:
            assert program.symbols.at_least_one(shape[d]), (name, shape, dims)


@pytest.mark.parametrize("name", ["var", "std", "var_dims", "std_dims"])
def test_var_uses_correction_1_only_on_two_elements_or_more(name):
    corrections = set()
    for program in _programs(ops.BY_NAME[name]):
        (node,) = program.nodes
        attrs = dict(node.attrs)
        corrections.add(attrs["correction"])
        shape = program.types[node.args[0]].shape
        dims = attrs.get("dims", attrs.get("dim"))
        dims = range(len(shape)) if dims is None else dims
        dims = [dims] if isinstance(dims, int) else list(dims)
        count = sympy.Mul(*(shape[d] for d in dims))
        if attrs["correction"] == 1:
            assert program.symbols.range(count)[0] >= 2, (name, shape, dims)
        else:
            assert program.symbols.range(count)[0] >= 1, (name, shape, dims)
    assert corrections == {0, 1}


def _smallest_and_largest(program):
    """The calls at every symbol's low end and at its high end (b0 is 1, then s1)."""
    calls = []
    for end in (0, 1):
        sizes = {}
        for name, info in program.symbols.info.items():
            if info.kind == "size":
                sizes[name] = (info.lo, info.hi)[end]
        for name, info in program.symbols.info.items():
            if info.kind == "broadcast":
                sizes[name] = 1 if end == 0 else sizes[info.partner]
        calls.append(sizes)
    return calls


@pytest.mark.parametrize("op", MINE, ids=lambda op: op.name)
def test_no_nan_or_inf_at_the_ends_of_the_size_ranges(op):
    """Float outputs stay finite at the smallest and the largest sizes, for float16 too
    (prod/cumprod clamp, var/std avoid one element, logsumexp/mean avoid empty dims)."""
    checked = 0
    for dtype in ("float32", "float16", "int64"):
        for program in list(_programs(op, dtype))[::7]:
            calls = _smallest_and_largest(program)
            plans = [
                CallPlan(tuple(sorted(s.items())), ("contiguous",) * len(program.input_types))
                for s in calls
            ]
            case = case_from_source(render_case(program, plans), f"op_{op.name}")
            for args in materialize(case, seed=0):
                for out in case.program(*args):
                    if out.is_floating_point():
                        assert bool(torch.isfinite(out).all()), (op.name, case.source)
                checked += 1
    assert checked, op.name
