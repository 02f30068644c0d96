"""Call plans: the concrete sizes and input layouts of each call in a sequence.

A sequence starts from one drawn call; each later call either repeats it (`same`),
redraws sizes while keeping every shape decision of the previous call (`preserve`: a
cache should hit), or changes sizes so that one decision goes the other way (`flip`: a
dim moving to/from 1, a branch threshold crossed; a cache must miss or re-check).
Layouts add aliasing inputs (the same tensor twice, two views of one base) and
non-contiguous inputs. Everything is decoded from genes like programs are.
"""

from __future__ import annotations

import dataclasses

from fuzz.ops.spec import Picker
from fuzz.program import Program

MODES = ("same", "preserve", "flip")


@dataclasses.dataclass(frozen=True)
class CallPlan:
    sizes: tuple[tuple[str, int], ...]  # symbol name -> value, for backed symbols
    layouts: tuple[str, ...]  # per input: contiguous | transposed | same:J | view:J
    mode: str = "first"


class _State:
    """Size symbols hold values; broadcast symbols hold "is 1" (else they equal their partner)."""

    def __init__(self, program: Program, values: dict[str, int | bool]):
        self.program, self.values = program, dict(values)

    def sizes(self) -> dict[str, int]:
        info = self.program.symbols.info
        out = {n: v for n, v in self.values.items() if info[n].kind == "size"}
        for n, v in self.values.items():
            if info[n].kind == "broadcast":
                out[n] = 1 if v else out[info[n].partner]
        return out

    def outcomes(self):
        return self.program.outcomes(self.sizes())

    def options(self, name: str) -> list[int | bool]:
        info = self.program.symbols.info[name]
        return [True, False] if info.kind == "broadcast" else list(range(info.lo, info.hi + 1))


def _draw_state(program: Program, pick: Picker) -> _State:
    state = _State(program, {})
    for name in program.backed_symbols():
        state.values[name] = pick.pick(state.options(name))
    return state


def _preserve(prev: _State, pick: Picker) -> _State:
    want = prev.outcomes()
    state = _State(prev.program, prev.values)
    for name in prev.program.backed_symbols():
        old = state.values[name]
        state.values[name] = pick.pick(state.options(name))
        if state.outcomes() != want:
            state.values[name] = old  # that value would change a decision: keep the old one
    return state


def _flip(prev: _State, pick: Picker) -> _State | None:
    program, before = prev.program, prev.outcomes()
    flippable = [i for i, d in enumerate(program.decisions) if d.predicate is not None]
    if not flippable:
        return None
    start = pick.index(len(flippable))
    for i in flippable[start:] + flippable[:start]:
        for name in sorted(program.decisions[i].symbols):
            options = prev.options(name)
            offset = pick.index(len(options))
            for value in options[offset:] + options[:offset]:
                state = _State(program, prev.values | {name: value})
                if state.outcomes()[i] != before[i]:
                    return state
    return None


def _layouts(program: Program, pick: Picker) -> tuple[str, ...]:
    types = program.input_types
    layouts: list[str] = []
    viewed: set[int] = set()
    for i, t in enumerate(types):
        bases = [j for j in range(i) if types[j] == t and layouts[j] in ("contiguous",)]
        options = ["contiguous", "contiguous"]
        if t.rank >= 2:
            options.append("transposed")
        options += [f"same:{j}" for j in bases]
        options += [f"view:{j}" for j in bases if j not in viewed]
        choice = pick.pick(options)
        if choice.startswith("view:"):
            viewed.add(int(choice[5:]))
        layouts.append(choice)
    return tuple(layouts)


def plan_sequence(
    program: Program, genes: list[tuple[int, ...]], modes: list[str]
) -> list[CallPlan]:
    """One call per gene; `modes[k-1]` says how call k relates to call k-1."""
    pick = Picker(genes[0])
    state = _draw_state(program, pick)
    plans = [CallPlan(tuple(sorted(state.sizes().items())), _layouts(program, pick))]
    for gene, mode in zip(genes[1:], modes):
        pick = Picker(gene)
        if mode == "same":
            new = state
        elif mode == "preserve":
            new = _preserve(state, pick)
        else:
            new = _flip(state, pick) or _draw_state(program, pick)
        state = new
        plans.append(CallPlan(tuple(sorted(state.sizes().items())), _layouts(program, pick), mode))
    return plans
