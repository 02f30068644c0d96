"""The program IR and its decoder.

A `Genome` is what Hypothesis draws: one gene (a tuple of small ints) per input and per
op. `decode` turns it into a `Program` deterministically and *validly by construction*:
each op gene picks an op family (by the weight of its ops, `fuzz/ops/weights.py`) among
those with an op whose operand constraint some available values meet, then one of those
ops, then its operand tuple, then the op's attributes, each as `gene[i] % n` (the family
by a scaled gene value, `Picker.weighted`). So deleting an op gene (what Hypothesis's
shrinker does to lists) still decodes to a valid, smaller program, and shrinking a gene
towards zeros picks simpler options.

Inputs are tensors (a dtype from `dtypes.INPUT_DTYPES`, dims whose range may include 0
and 1, or a shape related to an earlier input for broadcasting), then Python numbers
(`NumberType`, one per number gene). A number input that no op gene used gets one op
that uses it, decoded from the number's own gene, so every number input matters.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

import sympy

from fuzz import ops as op_catalogue
from fuzz.ops import weights
from fuzz.ops.dtypes import INPUT_DTYPES
from fuzz.ops.spec import Decision, NumberType, OpSpec, Picker, Symbols, TensorType, Value


@dataclasses.dataclass(frozen=True)
class Genome:
    inputs: tuple[tuple[int, ...], ...]  # one gene per tensor input
    ops: tuple[tuple[int, ...], ...]
    numbers: tuple[tuple[int, ...], ...] = ()  # one gene per number input (after the tensors)


@dataclasses.dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]  # value ids
    attrs: tuple[tuple[str, Any], ...]
    outputs: tuple[int, ...]  # value ids
    decisions: tuple[Decision, ...] = ()  # the shape decisions this op takes

    @property
    def spec(self) -> OpSpec:
        return op_catalogue.BY_NAME[self.op]


@dataclasses.dataclass
class Program:
    input_types: tuple[Value, ...]  # TensorType or NumberType
    nodes: tuple[Node, ...]
    types: tuple[Value, ...]  # by value id; inputs first
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

    def number_symbols(self) -> list[str]:
        return [n for n, i in self.symbols.info.items() if i.kind == "number"]

    def tensor_inputs(self) -> list[int]:
        return [i for i, t in enumerate(self.input_types) if isinstance(t, TensorType)]

    def used_inputs(self) -> set[int]:
        return {a for n in self.nodes for a in n.args if a < self.n_inputs}

    def inplace_sources(self) -> set[frozenset[int]]:
        """Pairs of storage roots an in-place op reads one from and writes the other."""
        return {
            frozenset((self.types[n.args[0]].root, self.types[n.args[1]].root))
            for n in self.nodes
            if n.spec.family == "inplace" and len(n.args) == 2
        }

    def number_inputs(self) -> list[int]:
        return [i for i, t in enumerate(self.input_types) if isinstance(t, NumberType)]


# Lower ends of a fresh input dim: mostly >= 2, sometimes a dim that can be empty or 1.
DIM_LOWS = (2, 3, 0, 2, 1, 3)
# Ranks of a fresh input: rank 1 is the simplest (what shrinking goes to), ranks 2 and 3
# the most common, as in the models the harness stands for. Values made in a program are
# of lower rank than its inputs more often than higher (reductions, `reshape(-1)`, the
# one-dim results of data-dependent ops), and under uniform input ranks 1 to 3 over half
# of all operands were one-dim, where a multi-dim reduction, a flip of several dims or a
# movedim has one dim to work on.
INPUT_RANKS = (1, 2, 3, 2, 3, 4)


def _decode_tensor(pick: Picker, earlier: list[TensorType], syms: Symbols) -> TensorType:
    if earlier and pick.index(3):
        # Related to an earlier input: a suffix of its shape (rank differences) with
        # some dims replaced by 1 or by a broadcast symbol (size-1 flips per call).
        base = pick.pick(earlier)
        shape = []
        for d in base.shape[len(base.shape) - (1 + pick.index(len(base.shape))) :]:
            choice = pick.index(4)
            if choice == 1:
                d = sympy.Integer(1)
            elif choice == 2 and syms.kind(d) == "size":
                d = syms.broadcast(d)
            shape.append(d)
        dtype = base.dtype if pick.index(2) == 0 else pick.pick(INPUT_DTYPES)
        return TensorType(tuple(shape), dtype)
    shape = []
    for _ in range(pick.pick(INPUT_RANKS)):
        lo = pick.pick(DIM_LOWS)
        shape.append(syms.size(lo, max(lo, 2) + pick.integer(1, 5)))
    return TensorType(tuple(shape), pick.pick(INPUT_DTYPES))


def _decode_number(pick: Picker, syms: Symbols) -> NumberType:
    """An "int" number in [0|1|2, +2..5] (it may be a size or an index) or a "scalar"
    number in [1|2, +1..4] (an int or a float per call)."""
    if pick.index(2) == 0:
        lo = pick.pick((0, 1, 2))
        return NumberType(syms.number(lo, lo + pick.integer(2, 5), "int"), "int")
    lo = pick.pick((1, 2))
    return NumberType(syms.number(lo, lo + pick.integer(1, 4), "scalar"), "scalar")


def _decode_inputs(genome: Genome, syms: Symbols) -> list[Value]:
    types: list[Value] = []
    for i, gene in enumerate(genome.inputs or ((0,),)):
        t = _decode_tensor(Picker(gene), list(types), syms)
        types.append(dataclasses.replace(t, root=i))
    for gene in genome.numbers:
        types.append(_decode_number(Picker(gene), syms))
    return types


def _add_node(op, candidates, pick, types, syms, nodes, decisions) -> None:
    # Latest values first: the zero choice chains ops, which shrinks to readable programs.
    candidates.sort(key=lambda c: -max(c))
    args = pick.pick(candidates)
    built = op.build([types[a] for a in args], syms, pick)
    out_ids = tuple(range(len(types), len(types) + len(built.outputs)))
    for k, (v, t) in enumerate(zip(out_ids, built.outputs)):
        root = types[args[0]].root if op.aliases and k == 0 else v
        types.append(dataclasses.replace(t, root=root))
    nodes.append(Node(op.name, args, tuple(built.attrs.items()), out_ids, built.decisions))
    decisions.extend(built.decisions)


def _by_family(
    ops: Sequence[OpSpec], focus: frozenset[str] = frozenset()
) -> dict[str, list[OpSpec]]:
    """The ops by family, plus the nightly round's focus ops (fuzz/campaign/focus.py) as one
    more family, `FOCUS_FAMILY`, when any of them is in `ops`."""
    by_family: dict[str, list[OpSpec]] = {}
    for op in ops:
        by_family.setdefault(op.family, []).append(op)
    if chosen := [op for op in ops if op.name in focus]:
        by_family[weights.FOCUS_FAMILY] = chosen
    return by_family


def _weight(family: str, n_ops: int) -> int:
    """A family's weight in the pick: its ops' weight (`weights.FAMILY_WEIGHTS`, the
    focus's `FOCUS_WEIGHT`), times its number of ops when `weights.WEIGH_BY` is "op"."""
    if family == weights.FOCUS_FAMILY:
        per_op = weights.FOCUS_WEIGHT
    else:
        per_op = weights.FAMILY_WEIGHTS.get(family, 1)
    return per_op * n_ops if weights.WEIGH_BY == "op" else per_op


def _pick_op(by_family: dict[str, list[OpSpec]], types, syms, pick: Picker, keep=None):
    """An op and its operand candidates: a family picked by its weight (`_weight`) among
    those with an applicable op, then one of its applicable ops.

    Families are tried lazily (a family with no applicable op is dropped and the pick
    repeated): only the picked family's operand constraints are evaluated, not all 200
    ops' for every op gene. A family's weight counts all its ops, applicable or not, so
    an op's chance does not depend on which of its siblings apply. `keep` filters an
    op's candidates (None: keep all). None when no op applies."""
    families = list(by_family)
    while families:
        if weights.WEIGH_BY == "op":
            family = pick.weighted(families, [_weight(f, len(by_family[f])) for f in families])
        else:
            family = pick.pick([f for f in families for _ in range(_weight(f, 1))])
        choices = []
        for op in by_family[family]:
            candidates = op.operands(types, syms)
            if keep is not None:
                candidates = [c for c in candidates if keep(c)]
            if candidates:
                choices.append((op, candidates))
        if choices:
            return pick.pick(choices)
        families.remove(family)
    return None


def decode(
    genome: Genome,
    ops: Sequence[OpSpec] = op_catalogue.CATALOGUE,
    focus: frozenset[str] = frozenset(),
) -> Program:
    syms = Symbols()
    types = _decode_inputs(genome, syms)
    input_genes = (genome.inputs or ((0,),)) + genome.numbers
    n_inputs = len(types)
    nodes, decisions = [], []
    by_family = _by_family(ops, focus)
    for gene in genome.ops:
        pick = Picker(gene)
        op, candidates = _pick_op(by_family, types, syms, pick)
        _add_node(op, candidates, pick, types, syms, nodes, decisions)
    for j in range(n_inputs):
        if isinstance(types[j], NumberType) and all(j not in n.args for n in nodes):
            pick = Picker(input_genes[j])
            chosen = _pick_op(by_family, types, syms, pick, keep=lambda c, j=j: j in c[1:])
            if chosen is not None:
                _add_node(*chosen, pick, types, syms, nodes, decisions)
    # Every value nothing uses is an output: an op whose value reaches no output is dead
    # code, which no oracle compares and the stacks may drop (Thunder's DCE). Keeping
    # only the last three sinks, as before, left 12 % of drawn ops dead, and half of the
    # flips of several dims that had a size-1 dim (benchmarks/journal/2026-12-03.md,
    # eleventh session).
    used = {a for n in nodes for a in n.args}
    sinks = [v for v in range(n_inputs, len(types)) if v not in used] or [len(types) - 1]
    return Program(
        tuple(types[:n_inputs]),
        tuple(nodes),
        tuple(types),
        tuple(sinks),
        syms,
        tuple(decisions),
    )
