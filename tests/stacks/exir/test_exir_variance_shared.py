"""The checks' pipelines from one run of to_executorch's passes (mirror.mirror_points)
give what the isolated runs give: each variance point's plan (or error, or
NotApplicable) equals `mirror_to_executorch(edge, point)`, and the trunk planned naive
equals the real `to_executorch(edge, "naive")` plan, on programs where the variance
oracle fires (after-asserts on a program bound by its own torch._check, both late
points on a shape-predicate cond), on renamed and memory.view programs, with the
pre-fix double-tracing SpecPropPass, and when a pass of the pipeline raises."""

from __future__ import annotations

import warnings

import pytest
import torch

import fuzz.custom_ops  # noqa: F401
from fuzz.backends.exir import mirror
from fuzz.backends.exir.graph import shape_envs
from fuzz.backends.exir.oracles import variance as exir_variance
from fuzz.backends.exir.pipeline import build, mirror_to_executorch, to_executorch
from tests.stacks.exir.test_exir_oracles import (
    DIMS,
    DoubleTraceSpecPropPass,
    X,
    cond_on_size,
    dead_then_live_masked_select,
    positive_checked,
    positive_head_10,
)

warnings.filterwarnings("ignore")


def views(x):
    return x.view(-1) * 2, x.t().contiguous(), x[1:].unsqueeze(0).sum()


def inplace(x, y):
    x.mul_(2).add_(y)
    return (x.sum(0),)


def cond_program(x):
    return (torch.cond(x.sum() > 0, lambda x: (x * 2).sin(), lambda x: x.cos() + 1, (x,)),)


def matmul(x, w):
    return (torch.relu(x @ w) @ w.t(),)


PROGRAMS = {
    "positive_checked": (positive_checked, (X,), {0: {0: (2, 2)}}),
    "positive_head": (positive_head_10, (X,), DIMS),
    "cond_on_size": (cond_on_size, (torch.randn(2),), {0: {0: (2, 4)}}),
    "dead_masked_select": (
        dead_then_live_masked_select,
        (torch.randn(3), torch.randn(3)),
        {0: {0: (3, 6)}, 1: {0: (1, 6)}},
    ),
    "views": (views, (torch.randn(4, 3),), {0: {0: (2, 8)}}),
    "inplace": (inplace, (torch.randn(4, 3), torch.randn(3)), {0: {0: (2, 8)}}),
    "cond": (cond_program, (torch.rand(4, 3),), {0: {0: (2, 8)}}),
    "matmul": (matmul, (torch.randn(4, 8), torch.randn(8, 8)), {0: {0: (2, 9)}}),
    "static": (matmul, (torch.randn(4, 8), torch.randn(8, 8)), {}),
}


def outcome(value):
    """A planned graph module as its plan rows; an exception as its type and message."""
    if isinstance(value, BaseException):
        return type(value).__name__, str(value)
    return exir_variance.plan_fingerprint(value)


def isolated(edge, point):
    try:
        return outcome(mirror_to_executorch(edge, point))
    except Exception as e:
        return outcome(e)


def env_state(b):
    return [
        (dict(env.replacements), dict(env.var_to_range))
        for env in shape_envs(b.edge.exported_program().graph_module)
    ]


def assert_left_as_found(before, after):
    """The shared run leaves the ShapeEnv as it found it, but for the ranges of the unbacked
    symbols it made (fake tensors memoize them; see `mirror.shape_envs_restored`)."""
    from torch.utils._sympy.symbol import SymT, symbol_is_type

    assert len(after) == len(before)
    for (replacements, ranges), (replacements_was, ranges_was) in zip(after, before):
        assert replacements == replacements_was
        assert {s: r for s, r in ranges.items() if s in ranges_was} == ranges_was
        new = [s for s in ranges if s not in ranges_was]
        assert all(symbol_is_type(s, SymT.UNBACKED_INT) for s in new), new


def assert_same_as_isolated(b, points=mirror.POINTS):
    before = env_state(b)
    runs = mirror.mirror_points(b.edge, points, "naive")
    assert_left_as_found(before, env_state(b))
    shared = {point: outcome(runs.variants[point]) for point in points}
    assert shared == {point: isolated(b.edge, point) for point in points}
    naive = to_executorch(b.edge, "naive").exported_program()
    assert runs.trunk_error is None
    assert outcome(runs.trunk) == outcome(naive.graph_module)
    assert runs.signature == naive.graph_signature
    return shared


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shared_pipelines_give_what_the_isolated_runs_give(name):
    program, example, dims = PROGRAMS[name]
    b = build(program, example, dims)
    assert b.error is None
    shared = assert_same_as_isolated(b)
    base = exir_variance.plan_fingerprint(b.planned_gm)
    fired = {p for p, rows in shared.items() if isinstance(rows, list) and rows != base}
    expected = {  # where the variance oracle fires (tests/stacks/exir/test_exir_oracles.py)
        "positive_checked": {"after-asserts", "before-planning"},
        "cond_on_size": {"after-asserts", "before-planning"},
    }
    assert fired == expected.get(name, set())
    if name == "views":
        assert shared["before-planning"][0] == "NotApplicable"


def test_shared_pipelines_with_the_double_tracing_specprop(monkeypatch):
    """Executorch<=1.0's SpecPropPass (fresh unbacked symbols in the spec): the branches
    still give what the isolated runs give."""
    import executorch.exir.program._program as P

    monkeypatch.setattr(P, "SpecPropPass", type(DoubleTraceSpecPropPass()))
    for name in ("positive_checked", "positive_head", "dead_masked_select"):
        program, example, dims = PROGRAMS[name]
        b = build(program, example, dims)
        assert b.error is None
        runs = mirror.mirror_points(b.edge, mirror.POINTS)
        assert {p: outcome(runs.variants[p]) for p in mirror.POINTS} == {
            p: isolated(b.edge, p) for p in mirror.POINTS
        }


def test_a_pass_that_raises_reaches_every_point_after_it(monkeypatch):
    """RemoveGraphAssertsPass raising: "repeat" runs it after the extra SpecPropPass and
    raises there; "after-asserts" and "before-planning" never get past it; the naive
    plan raises it too (as the real to_executorch would)."""
    import executorch.exir.program._program as P

    def boom(self, gm):
        raise RuntimeError("asserts exploded")

    b = build(*PROGRAMS["cond"])
    monkeypatch.setattr(P.RemoveGraphAssertsPass, "call", boom)
    runs = mirror.mirror_points(b.edge, mirror.POINTS, "naive")
    for point in mirror.POINTS:
        assert outcome(runs.variants[point]) == isolated(b.edge, point)
        assert "asserts exploded" in str(runs.variants[point])
    assert "asserts exploded" in str(runs.trunk_error) and runs.trunk is None
    with pytest.raises(RuntimeError, match="asserts exploded"):
        to_executorch(b.edge, "naive")


def test_unknown_point_is_an_error_of_that_point_only():
    b = build(*PROGRAMS["cond"])
    runs = mirror.mirror_points(b.edge, ("repeat", "nowhere"))
    assert isinstance(runs.variants["nowhere"], ValueError)
    assert outcome(runs.variants["repeat"]) == isolated(b.edge, "repeat")


def unique_memo(x0, x1, n):
    # the fake `unique` memoizes its unbacked size on x1's fake tensor, so every re-trace
    # of `_unique2` takes the symbol the first one made; `roll` by a number lowers to
    # `executorch_prim.mod.Scalar`, which a re-trace cannot take (the registered
    # executorch_prim_mod_symint), so each variance point's run ends by raising
    v, inverse = torch.unique(x1, sorted=True, return_inverse=True)
    flipped = torch.take_along_dim(inverse, torch.arange(inverse.shape[0]).flip(0), dim=0)
    return v, x1.add_(flipped), torch.roll(x0, n, 0)


def test_a_run_after_a_restored_one_knows_the_unbacked_symbols_it_made():
    """A variance point's run made the unbacked size of `unique`; the ShapeEnv was put back
    afterwards. The next run (another point, or the real to_executorch) re-traces `unique`
    with the memoized symbol: it must still have its range (it raised `KeyError: u5`, a
    false pipeline-variance at the second point, found on the device machine's night)."""
    x1 = torch.randn(1, dtype=torch.float64)
    b = build(unique_memo, (torch.randn(3, 2), x1, 1), {0: {0: (3, 6)}})
    late = ("after-asserts", "before-planning")
    for point in late:
        with pytest.raises(AttributeError, match="is_int"):  # not KeyError
            mirror_to_executorch(b.edge, point)
    to_executorch(b.edge)
    runs = mirror.mirror_points(b.edge, late)
    assert [type(runs.variants[p]).__name__ for p in late] == ["AttributeError"] * 2
