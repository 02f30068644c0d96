"""The generator: programs valid by construction, call plans that keep or flip shape
decisions, aliasing and non-contiguous inputs, and op-by-op shrinkability."""

from __future__ import annotations

import dataclasses
from collections import Counter

import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.backends.eager import run_eager
from fuzz.calls import plan_sequence
from fuzz.program import decode
from fuzz.strategies import cases, genomes, make_case, programs
from fuzz.tensors import materialize

FAST = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def test_rejection_rate_is_under_ten_percent():
    """A draw is 'rejected' when eager raises on one of its calls: the program was not
    valid for the shapes we planned. Valid by construction means this stays near 0."""
    seen = Counter()

    @FAST
    @given(cases(lanes=("exir",)))
    def draw(generated):
        records = run_eager(generated.case, materialize(generated.case, 0))
        seen["drawn"] += 1
        seen["rejected"] += any(r.error for r in records)
        seen.update(generated.program.families)

    draw()
    rate = seen["rejected"] / seen["drawn"]
    print(f"rejected {seen['rejected']}/{seen['drawn']} = {rate:.1%}; families {dict(seen)}")
    assert rate < 0.10
    for family in ("broadcast", "view", "inplace", "data-dependent", "branch", "reduction"):
        assert seen[family] > 0, f"family {family} never drawn"


@FAST
@given(cases(lanes=("thunder", "exir")))
def test_output_shapes_follow_the_symbolic_rules(generated):
    program, case = generated.program, generated.case
    for plan, record in zip(generated.plans, run_eager(case, materialize(case, 0))):
        assert record.error is None, f"{record.error}\n{generated.source}"
        subs = {sympy.Symbol(k, integer=True, nonnegative=True): v for k, v in plan.sizes}
        for value, out in zip(program.outputs, record.outputs):
            shape = program.types[value].shape
            if not any(program.symbols.has_unbacked(d) for d in shape):
                assert tuple(out.shape) == tuple(int(d.subs(subs)) for d in shape), generated.source


@FAST
@given(programs(), st.data())
def test_deleting_any_op_gene_still_decodes_validly(program_unused, data):
    genome = data.draw(genomes())
    k = data.draw(st.integers(0, len(genome.ops) - 1))
    smaller = dataclasses.replace(genome, ops=genome.ops[:k] + genome.ops[k + 1 :] or ((0,),))
    program = decode(smaller)
    assert len(program.nodes) == max(1, len(genome.ops) - 1)
    generated = make_case(program, plan_sequence(program, [(0,), (1,)], ["preserve"]))
    errors = [r.error for r in run_eager(generated.case, materialize(generated.case, 0)) if r.error]
    assert not errors, f"{errors}\n{generated.source}"


@FAST
@given(
    programs(),
    st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), min_size=2, max_size=5),
    st.data(),
)
def test_call_modes_keep_or_flip_decisions(program, raw_genes, data):
    modes = data.draw(
        st.lists(
            st.sampled_from(["same", "preserve", "flip"]),
            min_size=len(raw_genes) - 1,
            max_size=len(raw_genes) - 1,
        )
    )
    plans = plan_sequence(program, raw_genes, modes)
    flippable = any(d.predicate is not None for d in program.decisions)
    for prev, plan in zip(plans, plans[1:]):
        before, after = program.outcomes(dict(prev.sizes)), program.outcomes(dict(plan.sizes))
        if plan.mode in ("same", "preserve"):
            assert before == after
        if plan.mode == "same":
            assert prev.sizes == plan.sizes
        if plan.mode == "flip" and flippable:
            assert before != after


def test_layouts_produce_aliasing_and_non_contiguous_inputs():
    """Over many draws, calls contain inputs that are the same tensor, views of one base,
    and non-contiguous tensors."""
    seen = Counter()

    @FAST
    @given(cases(lanes=("thunder",)))
    def draw(generated):
        for args in materialize(generated.case, 0):
            tensors = [a for a in args]
            seen["same"] += any(a is b for i, a in enumerate(tensors) for b in tensors[i + 1 :])
            keys = [a.untyped_storage().data_ptr() for a in tensors]
            seen["shared-storage"] += len(set(keys)) < len(keys)
            seen["non-contiguous"] += any(not a.is_contiguous() for a in tensors)

    draw()
    assert seen["same"] and seen["shared-storage"] > seen["same"] and seen["non-contiguous"], seen


@settings(FAST, max_examples=5)
@given(cases())
def test_rendered_source_is_what_runs(generated):
    # Execution always goes through the rendered case: the Case's program is the function
    # defined by exec'ing `source`, so its code object points at that source.
    assert generated.case.source == generated.source
    assert generated.case.program.__code__.co_filename == generated.case.where
