"""User-facing Hypothesis strategies: programs, call sequences, and whole cases.

    from fuzz.strategies import cases
    @given(cases(lanes=("thunder",)))
    def test_thunder(generated): ...

Programs and call plans are drawn as genes (lists of small ints) and decoded, so
Hypothesis shrinks them op by op and call by call. The engine never sees genes: it gets
a `Case` built from the rendered source.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

from hypothesis import strategies as st

from fuzz import ops as op_catalogue
from fuzz.calls import MODES, CallPlan, plan_sequence
from fuzz.case import Case, case_from_source
from fuzz.program import Genome, Program, decode
from fuzz.render import render_case

genes = st.lists(st.integers(0, 255), min_size=1, max_size=6).map(tuple)


def genomes(max_inputs: int = 3, max_ops: int = 8) -> st.SearchStrategy[Genome]:
    return st.builds(
        Genome,
        st.lists(genes, min_size=1, max_size=max_inputs).map(tuple),
        st.lists(genes, min_size=1, max_size=max_ops).map(tuple),
    )


def programs(
    lanes: Sequence[str] = ("thunder", "exir"), max_inputs: int = 3, max_ops: int = 8
) -> st.SearchStrategy[Program]:
    """Programs every one of `lanes` supports (Thunder cannot trace data-dependent ops)."""
    ops = op_catalogue.for_lanes(lanes)
    return genomes(max_inputs, max_ops).map(lambda g: decode(g, ops))


@st.composite
def call_plans(draw, program: Program, min_calls: int = 2, max_calls: int = 6) -> list[CallPlan]:
    gs = draw(st.lists(genes, min_size=min_calls, max_size=max_calls))
    modes = draw(st.lists(st.sampled_from(MODES), min_size=len(gs) - 1, max_size=len(gs) - 1))
    return plan_sequence(program, gs, modes)


@dataclasses.dataclass
class GeneratedCase:
    program: Program
    plans: list[CallPlan]
    source: str
    case: Case


def make_case(
    program: Program, plans: list[CallPlan], lanes: Sequence[str] | None = None, doc: str = ""
) -> GeneratedCase:
    source = render_case(program, plans, doc=doc, lanes=lanes)
    name = "gen_" + hashlib.sha1(source.encode()).hexdigest()[:12]
    return GeneratedCase(program, plans, source, case_from_source(source, name))


@st.composite
def cases(
    draw, lanes: Sequence[str] = ("thunder", "exir"), max_ops: int = 8, max_calls: int = 6
) -> GeneratedCase:
    program = draw(programs(lanes, max_ops=max_ops))
    plans = draw(call_plans(program, max_calls=max_calls))
    return make_case(program, plans, lanes)
