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

from fixes._patching import Part, Patch, PatchSet, unpatched
from fuzz import ops as op_catalogue
from fuzz.calls import EVERY_CALL, MODES, PLAN_STYLES, CallPlan, PlanStyle, plan_sequence
from fuzz.case import Case, case_from_source
from fuzz.defaults import MAX_CALLS, MAX_OPS
from fuzz.ops import weights
from fuzz.ops.spec import GENE_VALUES, TensorType
from fuzz.program import Genome, Program, decode
from fuzz.render import render_case

# Keep Hypothesis from drawing the literals of the modules this process has loaded.
#
# Hypothesis' provider (6.170 here) now and then (5 % of integer draws) returns a
# constant found in the source of the "local" modules in `sys.modules` (our fuzz/,
# benchmarks/ and fixes/ included;
# `hypothesis.internal.conjecture.providers._get_local_constants`), and that pool grows
# as modules are imported. So the same seed drew other programs
# after other imports: 38 of 80 derandomized EXIR draws changed after the campaign and
# core tests ran in the process (the pattern-specificity sample of 2026-12-04), and a
# fault night, which imports its plugin, drew other programs than its baseline night.
# A program must be a function of the seed and the harness alone; literals such as
# timeouts say nothing about programs. Hypothesis' own fixed constants stay.
#
# A patch set of kind "harness" (fixes._patching), gated on the source of the function
# it replaces (`LITERAL_POOL_SOURCES`): where a Hypothesis version has another one, or
# no such pool, nothing is changed and the skip is recorded with the other patch sets
# (fuzz.speedups.compat_state: report.json, case files).
#
# hypothesis.internal.conjecture.providers._get_local_constants, as the override below
# was written against -> its source_digest (fixes._patching).
LITERAL_POOL_SOURCES = {"local-constants": "c1f5bd54b11ae515"}  # hypothesis 6.170.27


def _providers():
    from hypothesis.internal.conjecture import providers

    return providers


def _upstream_local_constants() -> tuple:
    providers = _providers()
    if not hasattr(providers, "_get_local_constants"):
        return ()  # no such pool: the gate's digest differs, the part is skipped
    return (unpatched(providers, "_get_local_constants"),)


def _no_local_constants() -> list[Patch]:
    providers = _providers()
    empty = providers.Constants()
    return [Patch.set(providers, "_get_local_constants", lambda: empty)]


def _clear_constants_cache():
    """The constants already allowed per draw kind, local ones included, are forgotten
    when the override is installed and again when it is undone."""
    cache = getattr(_providers(), "CONSTANTS_CACHE", None)

    def clear() -> None:
        if cache is not None:
            cache.cache.clear()

    clear()
    return clear


LITERAL_POOL = PatchSet(
    "hypothesis-literal-pool",
    "harness",
    [
        Part(
            "local-constants",
            _no_local_constants,
            upstream=_upstream_local_constants,
            before=_clear_constants_cache,
        )
    ],
    LITERAL_POOL_SOURCES,
)
LITERAL_POOL.install()


class OpFocus(Protocol):
    """What `cases` reads of a focus (fuzz.campaign.focus.Focus): the op names of a lane
    to draw more often, read again at each draw."""

    def for_lane(self, lane: str) -> frozenset[str]: ...


class FocusOps(st.SearchStrategy):
    """`FOCUS_SIZE` names of `names`, each drawn as an index into them: a program's focus,
    the ops `decode` draws more often (one more family, fuzz.ops.weights).

    Why indices with weights: a program must be a function of Hypothesis' choices alone,
    or an example saved in the database (last night's failure, another machine's) replays
    as another program. The index is the choice that is stored and replayed; only how it
    is generated depends on the worker: each draw lands on one of `preferred` (a worker's
    least drawn ops) with probability `FOCUS_SHARE`, else anywhere. That is Hypothesis'
    `draw_integer(weights=...)` (the engine's, not a public strategy; what `sampled_from`
    and `integers` are built on; replay checks only the bounds; within one Hypothesis run
    the weights must stay the same, so a worker's focus moves between runs). Shrinking
    moves an index towards 0, the first name."""

    def __init__(self, names: Sequence[str], preferred: frozenset[str] = frozenset()):
        super().__init__()
        self.names = tuple(names)
        chosen = [i for i, name in enumerate(self.names) if name in preferred]
        share = weights.FOCUS_SHARE / len(chosen) if chosen else 0.0
        self.odds = {i: share for i in chosen} or None

    def do_draw(self, data) -> tuple[str, ...]:
        top = len(self.names) - 1
        return tuple(
            self.names[data.draw_integer(0, top, weights=self.odds)]
            for _ in range(weights.FOCUS_SIZE)
        )


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
    draw,
    program: Program,
    min_calls: int = 2,
    max_calls: int = MAX_CALLS,
    style: PlanStyle = EVERY_CALL,
) -> list[CallPlan]:
    """`style`: what the lane the calls are for can check (fuzz.calls.PlanStyle)."""
    gs = draw(st.lists(genes, min_size=min_calls, max_size=max_calls))
    modes = draw(st.lists(st.sampled_from(MODES), min_size=len(gs) - 1, max_size=len(gs) - 1))
    return plan_sequence(program, gs, modes, style)


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


def lane_choice(lanes: tuple[str, ...]) -> st.SearchStrategy[str]:
    """One of `lanes`, by `weights.LANE_WEIGHTS`; lanes of one weight are drawn exactly as
    before there were weights (the same choices give the same lane)."""
    if len(lanes) == 1:
        return st.just(lanes[0])
    if len({weights.LANE_WEIGHTS.get(lane, 1) for lane in lanes}) == 1:
        return st.sampled_from(lanes)
    return st.sampled_from(
        [lane for lane in lanes for _ in range(weights.LANE_WEIGHTS.get(lane, 1))]
    )


@st.composite
def cases(
    draw,
    lanes: Sequence[str] = ("thunder", "exir"),
    max_ops: int = MAX_OPS,
    max_calls: int = MAX_CALLS,
    focus: OpFocus | None = None,
) -> GeneratedCase:
    """A case for one of `lanes` (drawn first; `GeneratedCase.lane`), whose program uses
    that lane's whole op set and says `LANES = (lane,)`. The program's focus (`FocusOps`)
    is drawn first: uniformly, or with `focus`, an object whose `for_lane(lane)` (op names,
    read at each draw) it mostly draws from: a nightly worker's
    fuzz.campaign.focus.Focus, which moves between rounds."""
    lane = draw(lane_choice(tuple(lanes)))
    names = sorted(op.name for op in op_catalogue.for_lanes((lane,)))
    preferred = focus.for_lane(lane) if focus is not None else frozenset()
    chosen = draw(FocusOps(names, preferred))
    program = draw(programs((lane,), max_ops=max_ops, focus=frozenset(chosen)))
    style = PLAN_STYLES.get(lane, EVERY_CALL)
    plans = draw(call_plans(program, max_calls=max_calls, style=style))
    return make_case(program, plans, lane=lane)
