"""User-facing Hypothesis strategies: programs, call sequences, and whole cases.

    from fuzz.strategies import cases
    @given(cases(lanes=("thunder",)))
    def test_thunder(generated): ...

A generated case is drawn *for one lane*: `cases(lanes=("thunder", "exir"))` first draws
the lane, then a program from that lane's whole op set (`ops.for_lanes([lane])`: the
EXIR lane gets data-dependent ops, torch.cond and its custom ops, which Thunder cannot
trace), and renders `LANES = (lane,)` so the case runs there only. Programs and call
plans are drawn as genes (lists of small ints) and decoded, so Hypothesis shrinks them
op by op and call by call. The case runner never sees genes: it gets a `Case` built from the
rendered source.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from typing import Protocol

import sympy
from hypothesis import strategies as st

from fuzz import ops as op_catalogue
from fuzz.calls import MODES, CallPlan, plan_sequence
from fuzz.case import Case, case_from_source
from fuzz.defaults import MAX_CALLS, MAX_OPS
from fuzz.ops.spec import GENE_VALUES, TensorType
from fuzz.program import Genome, Program, decode
from fuzz.render import render_case


class OpFocus(Protocol):
    """What `cases` reads of a focus (fuzz.campaign.focus.Focus): the op names to draw more
    often, read again at each draw."""

    ops: frozenset[str]


genes = st.lists(st.integers(0, GENE_VALUES - 1), min_size=1, max_size=6).map(tuple)


def genomes(
    max_inputs: int = 3, max_ops: int = MAX_OPS, max_numbers: int = 2
) -> st.SearchStrategy[Genome]:
    return st.builds(
        Genome,
        st.lists(genes, min_size=1, max_size=max_inputs).map(tuple),
        st.lists(genes, min_size=1, max_size=max_ops).map(tuple),
        st.lists(genes, max_size=max_numbers).map(tuple),
    )


def programs(
    lanes: Sequence[str] = ("thunder", "exir"),
    max_inputs: int = 3,
    max_ops: int = MAX_OPS,
    focus: frozenset[str] = frozenset(),
) -> st.SearchStrategy[Program]:
    """Programs every one of `lanes` supports (Thunder cannot trace data-dependent ops);
    `focus`: op names drawn more often (a nightly round's focus, fuzz/campaign/focus.py)."""
    ops = op_catalogue.for_lanes(lanes)
    return genomes(max_inputs, max_ops).map(lambda g: decode(g, ops, focus))


@st.composite
def call_plans(
    draw, program: Program, min_calls: int = 2, max_calls: int = MAX_CALLS
) -> list[CallPlan]:
    gs = draw(st.lists(genes, min_size=min_calls, max_size=max_calls))
    modes = draw(st.lists(st.sampled_from(MODES), min_size=len(gs) - 1, max_size=len(gs) - 1))
    return plan_sequence(program, gs, modes)


@dataclasses.dataclass
class GeneratedCase:
    program: Program
    plans: list[CallPlan]
    source: str
    case: Case
    lane: str | None = None  # the lane the case was drawn for (None: every lane given)

    def coverage(self) -> dict:
        """What this case exercises, as counts a campaign can sum over cases:

        {"families":  {family: 1, ...}            the op families in the program,
         "ops":       {op name: 1, ...}           the catalogue ops in the program,
         "inputs":    {"number": 0|1,             whether some input is a Python number,
                       "dtype:<name>": 1, ...     each tensor input dtype,
                       "size0": 0|1},             whether some call has an empty input dim,
         "decisions": {decision kind: count},     decisions the program takes (`if`, ...)
         "dynamic":   0|1}                        whether it holds a data-dependent op, a
                                                  custom op or torch.cond (what makes
                                                  unbacked sizes and export-time branches)
        """
        program = self.program
        inputs = {"number": int(bool(program.number_inputs()))}
        for i in program.tensor_inputs():
            inputs[f"dtype:{program.input_types[i].dtype}"] = 1
        inputs["size0"] = int(
            any(0 in smallest_input_dims(program, p).values() for p in self.plans)
        )
        return {
            "families": {f: 1 for f in sorted(program.families)},
            "ops": {op: 1 for op in sorted({n.op for n in program.nodes})},
            "inputs": inputs,
            "decisions": dict(sorted(program.decision_kinds.items())),
            "dynamic": int(
                bool({"data-dependent", "custom"} & set(program.families))
                or any(n.op.startswith("cond") for n in program.nodes)
            ),
        }


def smallest_input_dims(program: Program, plan: CallPlan) -> dict[int, int]:
    """{tensor input index: its smallest dim at this call} (an empty dim shows as 0)."""
    sizes = dict(plan.sizes)
    out = {}
    for i, t in enumerate(program.input_types):
        if isinstance(t, TensorType) and t.shape:
            dims = [
                sympy.sympify(d).subs({s: sizes[s.name] for s in d.free_symbols}) for d in t.shape
            ]
            out[i] = min(int(d) for d in dims)
    return out


def make_case(
    program: Program,
    plans: list[CallPlan],
    lanes: Sequence[str] | None = None,
    doc: str = "",
    lane: str | None = None,
) -> GeneratedCase:
    source = render_case(program, plans, doc=doc, lanes=(lane,) if lane else lanes)
    name = "gen_" + hashlib.sha1(source.encode()).hexdigest()[:12]
    return GeneratedCase(program, plans, source, case_from_source(source, name), lane)


@st.composite
def cases(
    draw,
    lanes: Sequence[str] = ("thunder", "exir"),
    max_ops: int = MAX_OPS,
    max_calls: int = MAX_CALLS,
    focus: OpFocus | None = None,
) -> GeneratedCase:
    """A case for one of `lanes` (drawn first; `GeneratedCase.lane`), whose program uses
    that lane's whole op set and says `LANES = (lane,)`. `focus`: an object whose `ops`
    (op names, drawn more often) are read at each draw: a nightly worker's
    fuzz.campaign.focus.Focus, which moves while the worker explores."""
    lanes = tuple(lanes)
    lane = draw(st.sampled_from(lanes)) if len(lanes) > 1 else lanes[0]
    now = focus.ops if focus is not None else frozenset()
    program = draw(programs((lane,), max_ops=max_ops, focus=now))
    plans = draw(call_plans(program, max_calls=max_calls))
    return make_case(program, plans, lane=lane)
