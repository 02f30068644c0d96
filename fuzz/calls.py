"""Call plans: the concrete sizes, numbers and input layouts of each call in a sequence.

A sequence starts from one drawn call; each later call either repeats it (`same`),
redraws sizes and numbers while keeping every decision of the previous call and every
number's type (`preserve`: a cache should hit), changes sizes or numbers so that one
decision goes the other way (`flip`: a dim moving to/from 1, a branch threshold crossed,
`math.sqrt(n)` of another n; a cache must miss or re-check), or changes the type of a
scalar number input, int <-> float, keeping its value (3 -> 3.0) or not (3 -> 3.5)
(`retype`: Thunder 0.2.6 does not check number types). Layouts add aliasing inputs (the
same tensor twice, two views of one base) and non-contiguous inputs. What a sequence
varies follows the lane it is for (`PlanStyle`: EXIR keeps the numbers export
specialized; Thunder draws size 1 more often). Everything is decoded from genes like
programs are.
"""

from __future__ import annotations

import dataclasses

from fuzz.ops.spec import NumberType, Picker, TensorType
from fuzz.program import Program

MODES = ("same", "preserve", "flip", "retype")

ONE_ODDS = 4  # PlanStyle.ones: a size that can be 1 is 1 at one draw in ONE_ODDS


@dataclasses.dataclass(frozen=True)
class PlanStyle:
    """How a lane's call sequences are drawn, from what the lane can check.

    `ones`: a size symbol whose range holds 1 is 1 at one draw in ONE_ODDS before the
    uniform draw. Size 1 is where broadcasting, squeezes and per-dim lowerings change
    meaning, and a uniform draw over 1..7 reaches it rarely, let alone for one dim of a
    call while another is above 1. Thunder checks every call.

    `numbers_vary`: later calls may change a number input's value or type. On EXIR they
    do not: export specializes a number input to the example's value, so a call with
    another number is outside the exported contract and never checked (it was the
    largest share of EXIR's unchecked calls, benchmarks/journal/). For the same reason
    EXIR does not draw size 1 more often: a dynamic dim at 0 or 1 is outside the
    contract (0/1 specialization).
    """

    ones: bool = False
    numbers_vary: bool = True


PLAN_STYLES = {
    "thunder": PlanStyle(ones=True),
    "exir": PlanStyle(numbers_vary=False),
    "xnnpack": PlanStyle(numbers_vary=False),  # the EXIR lane's contract: numbers are static
    "thunderfx": PlanStyle(ones=True),  # Dynamo specializes sizes 0 and 1: guards flip
    "thunderprims": PlanStyle(ones=True),  # the Thunder lane's cache
}
EVERY_CALL = PlanStyle()  # calls for any lane (several lanes, or none named)


@dataclasses.dataclass(frozen=True)
class CallPlan:
    # symbol name -> value: sizes and broadcast dims (ints) and number inputs (an int or a
    # float: the type is the number's type at this call)
    sizes: tuple[tuple[str, int | float], ...]
    layouts: tuple[str, ...]  # per input: contiguous | transposed | same:J | view:J | number
    mode: str = "first"


def number_options(program: Program, name: str) -> list[int | float]:
    """Values a number symbol takes: ints in [lo, hi]; for scalar numbers also floats
    (each int as a float, and the halves in between)."""
    info = program.symbols.info[name]
    ints = list(range(info.lo, info.hi + 1))
    if info.numeric != "scalar":
        return ints
    return ints + [float(v) for v in ints] + [v + 0.5 for v in ints[:-1]]


class _State:
    """Size symbols hold values; broadcast symbols hold "is 1" (else they equal their
    partner); number symbols hold their Python value."""

    def __init__(self, program: Program, values: dict[str, int | float | bool]):
        self.program, self.values = program, dict(values)

    def sizes(self) -> dict[str, int | float]:
        info = self.program.symbols.info
        out = {n: v for n, v in self.values.items() if info[n].kind in ("size", "number")}
        for n, v in self.values.items():
            if info[n].kind == "broadcast":
                out[n] = 1 if v else out[info[n].partner]
        return out

    def outcomes(self):
        return self.program.outcomes(self.sizes())

    def options(self, name: str, same_type: bool = False) -> list[int | float | bool]:
        info = self.program.symbols.info[name]
        if info.kind == "broadcast":
            return [True, False]
        if info.kind == "number":
            values = number_options(self.program, name)
            if same_type and name in self.values:
                kind = type(self.values[name])
                values = [v for v in values if type(v) is kind]
            return values
        return list(range(info.lo, info.hi + 1))


def _draw_state(
    program: Program, pick: Picker, style: PlanStyle, prev: _State | None = None
) -> _State:
    """A fresh call; numbers kept from `prev` when the style keeps them."""
    state = _State(program, {})
    info = program.symbols.info
    for name in program.backed_symbols():
        options = state.options(name)
        # (the last residue, not 0: a gene of zeros, where shrinking goes, keeps lo)
        one = style.ones and info[name].kind == "size" and 1 in options
        if one and pick.index(ONE_ODDS) == ONE_ODDS - 1:
            state.values[name] = 1
        else:
            state.values[name] = pick.pick(options)
    for name in program.number_symbols():
        if prev is not None and not style.numbers_vary:
            state.values[name] = prev.values[name]
            continue
        ints = [v for v in state.options(name) if isinstance(v, int)]
        floats = [v for v in state.options(name) if isinstance(v, float)]
        # Ints first (what shrinking goes to); a scalar number is a float at 1 call in 3.
        state.values[name] = pick.pick(floats) if floats and pick.index(3) == 2 else pick.pick(ints)
    return state


def _symbols(program: Program, style: PlanStyle) -> list[str]:
    """The symbols a later call may change."""
    numbers = program.number_symbols() if style.numbers_vary else []
    return program.backed_symbols() + numbers


def _preserve(prev: _State, pick: Picker, style: PlanStyle) -> _State:
    want = prev.outcomes()
    state = _State(prev.program, prev.values)
    for name in _symbols(prev.program, style):
        old = state.values[name]
        state.values[name] = pick.pick(state.options(name, same_type=True))
        if state.outcomes() != want:
            state.values[name] = old  # that value would change a decision: keep the old one
    return state


def _flip(prev: _State, pick: Picker, style: PlanStyle) -> _State | None:
    program, before = prev.program, prev.outcomes()
    flippable = [i for i, d in enumerate(program.decisions) if d.predicate is not None]
    if not flippable:
        return None
    start = pick.index(len(flippable))
    changeable = set(_symbols(program, style))
    for i in flippable[start:] + flippable[:start]:
        for name in sorted(program.decisions[i].symbols & changeable):
            options = prev.options(name)
            offset = pick.index(len(options))
            for value in options[offset:] + options[:offset]:
                state = _State(program, prev.values | {name: value})
                if state.outcomes()[i] != before[i]:
                    return state
    return None


def _retype(prev: _State, pick: Picker) -> _State | None:
    """One scalar number changes type: int v -> float v or v + 0.5, float f -> int(f)."""
    info = prev.program.symbols.info
    scalars = [n for n in prev.program.number_symbols() if info[n].numeric == "scalar"]
    if not scalars:
        return None
    name = pick.pick(scalars)
    value = prev.values[name]
    if isinstance(value, int):
        new = value + 0.5 if pick.flag() and value < info[name].hi else float(value)
    else:
        new = int(value)
    return _State(prev.program, prev.values | {name: new})


def _empty(t: TensorType, sizes: dict[str, int | float]) -> bool:
    return any(d.subs({s: sizes[s.name] for s in d.free_symbols}) == 0 for d in t.shape)


def _layouts(program: Program, pick: Picker, sizes: dict[str, int | float]) -> tuple[str, ...]:
    """Per input: a layout. Only inputs the program uses alias each other, and only when
    no unused input comes before them: aliasing an unused input, or used ones after an
    unused one (whose positions Thunder 0.2.6 then miscounts), only shows its registered
    alias-index mismatch (corpus/thunder_alias_unused_input_crash.py,
    thunder_alias_index_shift.py, thunder_alias_number_input_integerproxy.py), which
    would otherwise hide every other oracle on the program. An input that is empty at
    this call is neither transposed nor a view of a wider base: its strides mean nothing,
    and the ExecuTorch runtime aborts the process on an empty input with non-contiguous
    strides (`make_tensor_ptr`: "invalid strides for dim 2: 2 != 1 while its size is 0")."""
    types = program.input_types
    used = program.used_inputs()
    inplace = program.inplace_sources()
    layouts: list[str] = []
    viewed: set[int] = set()
    for i, t in enumerate(types):
        if isinstance(t, NumberType):
            layouts.append("number")
            continue
        bases = [
            j
            for j in range(i)
            if isinstance(types[j], TensorType)
            and types[j] == t
            and layouts[j] == "contiguous"
            and {i, j} <= used
            and all(k in used for k in range(i))
        ]
        options = ["contiguous", "contiguous"]
        if t.rank >= 2 and not _empty(t, sizes):
            options.append("transposed")
        # The same tensor twice would make an in-place op's source overlap its target in
        # ways eager rejects ("refer to a single memory location"): not for such pairs.
        options += [f"same:{j}" for j in bases if frozenset((i, j)) not in inplace]
        if not _empty(t, sizes):  # (views of an empty base have odd strides too)
            options += [f"view:{j}" for j in bases if j not in viewed]
        choice = pick.pick(options)
        if choice.startswith("view:"):
            viewed.add(int(choice[5:]))
        layouts.append(choice)
    return tuple(layouts)


def plan_sequence(
    program: Program,
    genes: list[tuple[int, ...]],
    modes: list[str],
    style: PlanStyle = EVERY_CALL,
) -> list[CallPlan]:
    """One call per gene; `modes[k-1]` says how call k relates to call k-1. A plan's `mode`
    is what happened: a `retype` that finds no scalar number (or a style that keeps
    numbers) flips instead, and a `flip` that finds no value flipping a decision is a
    `redraw`. `style`: what the lane can check (PlanStyle)."""
    pick = Picker(genes[0])
    state = _draw_state(program, pick, style)
    plans = [CallPlan(tuple(sorted(state.sizes().items())), _layouts(program, pick, state.sizes()))]
    for gene, mode in zip(genes[1:], modes):
        pick = Picker(gene)
        if mode == "same":
            new = state
        elif mode == "preserve":
            new = _preserve(state, pick, style)
        elif mode == "retype" and style.numbers_vary and (new := _retype(state, pick)) is not None:
            pass
        elif (new := _flip(state, pick, style)) is not None:
            mode = "flip"
        else:  # no single value flips a decision here: a fresh draw, said as such
            new, mode = _draw_state(program, pick, style, state), "redraw"
        state = new
        layouts = _layouts(program, pick, state.sizes())
        plans.append(CallPlan(tuple(sorted(state.sizes().items())), layouts, mode))
    return plans
