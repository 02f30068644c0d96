"""The program IR and its decoder.

A `Genome` is what Hypothesis draws: one gene (a tuple of small ints) per input and per
op. `decode` turns it into a `Program` deterministically and *validly by construction*:
each op gene picks among the ops whose operand constraints some available values meet,
then among those operand tuples, then the op's attributes, each as `gene[i] % n`. So
deleting an op gene (what Hypothesis's shrinker does to lists) still decodes to a valid,
smaller program, and shrinking a gene towards zeros picks simpler options.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

import sympy

from fuzz import ops as op_catalogue
from fuzz.ops.spec import Decision, OpSpec, Picker, Symbols, TensorType

MAX_OUTPUTS = 3


@dataclasses.dataclass(frozen=True)
class Genome:
    inputs: tuple[tuple[int, ...], ...]
    ops: tuple[tuple[int, ...], ...]


@dataclasses.dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]  # value ids
    attrs: tuple[tuple[str, Any], ...]
    outputs: tuple[int, ...]  # value ids

    @property
    def spec(self) -> OpSpec:
        return op_catalogue.BY_NAME[self.op]


@dataclasses.dataclass
class Program:
    input_types: tuple[TensorType, ...]
    nodes: tuple[Node, ...]
    types: tuple[TensorType, ...]  # by value id; inputs first
    outputs: tuple[int, ...]
    symbols: Symbols
    decisions: tuple[Decision, ...]

    @property
    def n_inputs(self) -> int:
        return len(self.input_types)

    def name(self, value: int) -> str:
        return f"x{value}" if value < self.n_inputs else f"v{value}"

    @property
    def families(self) -> Counter:
        return Counter(n.spec.family for n in self.nodes)

    @property
    def decision_kinds(self) -> Counter:
        return Counter(d.kind for d in self.decisions)

    def outcomes(self, sizes: dict[str, int]) -> tuple:
        return tuple(d.outcome(sizes) for d in self.decisions)

    def backed_symbols(self) -> list[str]:
        return [n for n, i in self.symbols.info.items() if i.kind in ("size", "broadcast")]


def _decode_inputs(genes: Sequence[Sequence[int]], syms: Symbols) -> list[TensorType]:
    types: list[TensorType] = []
    for gene in genes:
        pick = Picker(gene)
        if types and pick.index(3):
            # Related to an earlier input: a suffix of its shape (rank differences) with
            # some dims replaced by 1 or by a broadcast symbol (size-1 flips per call).
            base = pick.pick(types).shape
            shape = []
            for d in base[len(base) - (1 + pick.index(len(base))) :]:
                choice = pick.index(4)
                if choice == 1:
                    d = sympy.Integer(1)
                elif choice == 2 and syms.kind(d) == "size":
                    d = syms.broadcast(d)
                shape.append(d)
        else:
            shape = []
            for _ in range(1 + pick.index(3)):
                lo = pick.integer(2, 3)
                shape.append(syms.size(lo, lo + pick.integer(1, 5)))
        types.append(TensorType(tuple(shape)))
    return types


def decode(genome: Genome, ops: Sequence[OpSpec] = op_catalogue.CATALOGUE) -> Program:
    syms = Symbols()
    types = _decode_inputs(genome.inputs or ((0,),), syms)
    n_inputs = len(types)
    nodes, decisions = [], []
    for gene in genome.ops:
        pick = Picker(gene)
        choices = [(op, cands) for op in ops if (cands := op.operands(types, syms))]
        op, candidates = pick.pick(choices)
        # Latest values first: the zero choice chains ops, which shrinks to readable programs.
        candidates.sort(key=lambda c: -max(c))
        args = pick.pick(candidates)
        built = op.build([types[a] for a in args], syms, pick)
        out_ids = tuple(range(len(types), len(types) + len(built.outputs)))
        types.extend(built.outputs)
        nodes.append(Node(op.name, args, tuple(built.attrs.items()), out_ids))
        decisions.extend(built.decisions)
    used = {a for n in nodes for a in n.args}
    sinks = [v for v in range(n_inputs, len(types)) if v not in used] or [len(types) - 1]
    return Program(
        tuple(types[:n_inputs]),
        tuple(nodes),
        tuple(types),
        tuple(sinks[-MAX_OUTPUTS:]),
        syms,
        tuple(decisions),
    )
