"""The vocabulary every op description uses: symbolic types, symbols, decisions.

Shapes are tuples of sympy expressions over four kinds of symbol:
  size       s0, s1, ...  an input dimension in [lo, hi]; lo may be 0 or 1, so a size
             can be empty or 1 at some calls (ops that cannot take that ask `at_least_one`)
  broadcast  b0, b1, ...  an input dimension that is either 1 or equal to its partner size
             symbol, chosen per call: this is how size-1 dims flip between calls
  unbacked   u0, u1, ...  the size of a data-dependent result, in [0, bound]
  number     n0, n1, ...  a Python number input of the program (`NumberType`), in
             [lo, hi]; "int" numbers are ints at every call and may be used as sizes,
             slice bounds and indices; "scalar" numbers are an int or a float, chosen
             per call, and are only used where both are valid (scales, math, branches)
An op description states which operands it accepts (dtypes included) and its symbolic
shape rule (output dtypes included), so the generator only ever builds programs that are
valid for every call it will make.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import sympy

from fuzz.ops.dtypes import FLOATS

Shape = tuple[sympy.Expr, ...]


@dataclasses.dataclass(frozen=True)
class SymbolInfo:
    name: str
    kind: str  # "size" | "broadcast" | "unbacked" | "number"
    lo: int
    hi: int | None = None  # size, number: inclusive upper bound; unbacked: None (see bound)
    partner: str | None = None  # broadcast: the size symbol it equals when not 1
    bound: sympy.Expr | None = None  # unbacked: upper bound as an expression
    numeric: str | None = None  # number: "int" or "scalar" (an int or a float per call)


class Symbols:
    """The symbol table of one program, filled while it is decoded."""

    def __init__(self):
        self.info: dict[str, SymbolInfo] = {}
        # range() by expression: decoding asks for the same few dims thousands of times,
        # and a symbol's info never changes once made (entries are only added).
        self._ranges: dict[sympy.Expr, tuple[int, int]] = {}

    def _new(self, prefix: str, **kw) -> sympy.Symbol:
        name = f"{prefix}{sum(1 for n in self.info if n.startswith(prefix))}"
        self.info[name] = SymbolInfo(name, **kw)
        return self.symbol(name)

    def symbol(self, name: str) -> sympy.Symbol:
        """The sympy symbol of `name` (scalar numbers are reals: `floor(n)` stays a floor)."""
        if self.info[name].numeric == "scalar":
            return sympy.Symbol(name, real=True, positive=True)
        return sympy.Symbol(name, integer=True, nonnegative=True)

    def size(self, lo: int, hi: int) -> sympy.Symbol:
        return self._new("s", kind="size", lo=lo, hi=hi)

    def broadcast(self, partner: sympy.Symbol) -> sympy.Symbol:
        return self._new("b", kind="broadcast", lo=1, partner=partner.name)

    def unbacked(self, bound: sympy.Expr) -> sympy.Symbol:
        return self._new("u", kind="unbacked", lo=0, bound=bound)

    def number(self, lo: int, hi: int, numeric: str = "int") -> sympy.Symbol:
        return self._new("n", kind="number", lo=lo, hi=hi, numeric=numeric)

    def kind(self, e: sympy.Expr) -> str | None:
        """ "size"/"broadcast"/"unbacked"/"number" for a bare symbol, None for anything else."""
        return self.info[e.name].kind if isinstance(e, sympy.Symbol) else None

    def partner(self, e: sympy.Expr) -> sympy.Expr | None:
        if self.kind(e) == "broadcast":
            return self.symbol(self.info[e.name].partner)
        return None

    def has_unbacked(self, e: sympy.Expr) -> bool:
        return any(self.info[s.name].kind == "unbacked" for s in sympy.sympify(e).free_symbols)

    def at_least_one(self, e: sympy.Expr) -> bool:
        """Whether the dim is >= 1 at every call (so it can be sliced, selected, ...)."""
        return not self.has_unbacked(e) and self.range(e)[0] >= 1

    def at_least_two(self, e: sympy.Expr) -> bool:
        return not self.has_unbacked(e) and self.range(e)[0] >= 2

    def range(self, e: sympy.Expr) -> tuple[int, int]:
        """Smallest and largest value of a backed expression over all calls (every shape
        rule is monotone in each symbol, so the ends are the symbols' ends)."""
        e = sympy.sympify(e)
        if e.is_Integer:
            return int(e), int(e)
        if (known := self._ranges.get(e)) is None:
            known = self._ranges[e] = self._range(e)
        return known

    def _range(self, e: sympy.Expr) -> tuple[int, int]:
        subs_lo, subs_hi = {}, {}
        for s in e.free_symbols:
            info = self.info[s.name]
            if info.kind in ("size", "number"):
                subs_lo[s], subs_hi[s] = info.lo, info.hi
            elif info.kind == "broadcast":  # 1, or its partner's value (which may be 0)
                partner = self.info[info.partner]
                subs_lo[s], subs_hi[s] = min(1, partner.lo), partner.hi
            else:
                raise ValueError(f"{s} is unbacked; it has no static range")
        return int(e.subs(subs_lo)), int(e.subs(subs_hi))


def quotient(d: sympy.Expr, by: int | sympy.Expr) -> sympy.Expr | None:
    """`d / by` when it is an integer at every call (2*s0 by 2, s0*s1 by s1, 3*floor(s0/2)
    by 3), else None. Not `sympy.fraction(sympy.cancel(d / by))`: a sum has denominator 1
    whatever its terms (s0 - ceiling(s0/2) by 2, which is 1 at s0 = 2 and 3; floor(s0/2)
    + 1 by 3, a conv's output, which is 2 at s0 = 3: that rule drew `unflatten(2, (3, 0))`
    of a dim of 2, which eager rejects at every call)."""
    q = sympy.expand(sympy.sympify(d) / by)
    return q if q.is_integer else None


def half(d: sympy.Expr) -> sympy.Expr | None:
    """`d / 2` when it is an integer at every call (`quotient`)."""
    return quotient(d, 2)


@dataclasses.dataclass(frozen=True)
class TensorType:
    shape: Shape
    dtype: str = "float32"
    writable: bool = True  # False for expanded tensors and views of them (in-place would fail)
    # The value id whose storage this value may share (its own id unless it may be a view
    # of, or the same tensor as, an earlier value); set by the decoder, not compared.
    root: int | None = dataclasses.field(default=None, compare=False)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def numel(self) -> sympy.Expr:
        return sympy.Mul(*self.shape) if self.shape else sympy.Integer(1)


@dataclasses.dataclass(frozen=True)
class NumberType:
    """A Python number input: its symbol (kind "number") and whether it is always an int
    ("int") or an int or a float, per call ("scalar")."""

    symbol: sympy.Symbol
    numeric: str = "int"


Value = TensorType | NumberType


@dataclasses.dataclass(frozen=True)
class Decision:
    """A shape decision the program takes: which way it goes is `predicate` at a call's sizes.

    `predicate` is None for data-dependent decisions (e.g. torch.cond on a tensor value).
    """

    kind: str
    predicate: sympy.Basic | None
    text: str

    def outcome(self, sizes: dict[str, int | float]):
        """The decision at a call's symbol values (sizes and numbers, by name)."""
        if self.predicate is None:
            return None
        value = self.predicate.subs({s: sizes[s.name] for s in self.predicate.free_symbols})
        if value in (sympy.true, sympy.false):
            return bool(value)
        return int(value) if value.is_integer else round(float(value), 9)

    @classmethod
    def on(cls, kind: str, predicate: sympy.Basic, text: str, syms: Symbols) -> Decision:
        """A decision on `predicate`, or a data-dependent one (no predicate) when it reads
        a data-dependent size: calls cannot choose its outcome."""
        return cls(kind, None if syms.has_unbacked(predicate) else predicate, text)

    @property
    def symbols(self) -> set[str]:
        return (
            {s.name for s in self.predicate.free_symbols} if self.predicate is not None else set()
        )


GENE_VALUES = 256  # a gene holds ints in [0, GENE_VALUES) (fuzz.strategies.genes)
_MASK = (1 << 64) - 1


def extend(gene: Sequence[int], i: int) -> int:
    """Value i (>= len(gene)) of a gene's deterministic extension, in [0, GENE_VALUES): a
    splitmix64 hash of the gene's values and i. Plain integer arithmetic, so the same on
    every machine and Python (no `hash()`, which is salted for strings)."""
    x = i
    for g in gene:
        x = (x * 0x100000001B3 + g + 1) & _MASK
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return (x ^ (x >> 31)) % GENE_VALUES


class Picker:
    """Turns one gene (a tuple of non-negative ints drawn by Hypothesis) into choices.

    Choice i is `value(i) % len(options)` (`weighted` scales `value(i)` instead), so any
    gene decodes to a valid choice. `value(i)` is `gene[i]`; past the gene's end it is a
    hash of the whole gene and i (`extend`), and 0 for a gene of zeros, so shrinking a
    gene towards zeros moves every choice towards the first option.

    Why a hash and not `gene[i % len(gene)]`: an op takes 4 to 10 choices from a gene of 1
    to 6 values, and repeating the gene tied its choices together. With a one-value gene
    every choice was the same value modulo its count: the value that picked `flip` among
    the shape ops also fixed whether it flipped several dims, and one call plan gene gave
    every size symbol of the same range the same size, so "this dim is 1 and that one is
    not" was rare (benchmarks/journal/2026-12-03.md, eighth session).
    """

    def __init__(self, gene: Sequence[int]):
        self.gene, self.i = tuple(gene), 0
        self._zero = not any(self.gene)

    def value(self, i: int) -> int:
        if i < len(self.gene):
            return self.gene[i]
        return 0 if self._zero else extend(self.gene, i)

    def index(self, n: int) -> int:
        if n <= 0:
            raise ValueError("nothing to pick from")
        value = self.value(self.i)
        self.i += 1
        return value % n

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.index(len(options))]

    def weighted(self, options: Sequence[Any], weights: Sequence[int]) -> Any:
        """An option by weight, from one gene value scaled over the total weight (not
        `value % total`: a gene value is below 256, so a total above it would leave the
        last options unreachable). Value 0 is the first option, as with `pick`."""
        total = sum(weights)
        point = self.index(GENE_VALUES) * total // GENE_VALUES
        for option, weight in zip(options, weights):
            if point < weight:
                return option
            point -= weight
        raise ValueError("no option with a positive weight")

    def integer(self, lo: int, hi: int) -> int:
        return lo + self.index(hi - lo + 1)

    def flag(self) -> bool:
        return bool(self.index(2))

    def sample(self, options: Sequence[Any], count: int) -> list[Any]:
        """`count` distinct options, in the order picked (dims to reduce, a permutation)."""
        rest = list(options)
        return [rest.pop(self.index(len(rest))) for _ in range(count)]


@dataclasses.dataclass(frozen=True)
class Built:
    """What an op description builds for chosen operands: attrs, output types, decisions."""

    attrs: dict[str, Any]
    outputs: tuple[TensorType, ...]
    decisions: tuple[Decision, ...] = ()


@dataclasses.dataclass(frozen=True)
class OpSpec:
    """One op, described once.

    `operands(values, syms)` lists the operand tuples (indices into `values`) the op
    accepts; `build(types, syms, pick)` draws attributes and applies the symbolic shape
    rule. `template` renders the op: `{out}` (or `{out0}`, `{out1}` for several outputs),
    operands `{0}`, `{1}`, and attribute names.
    """

    name: str
    family: str
    template: str
    operands: Callable[[Sequence[Value], Symbols], list[tuple[int, ...]]]
    build: Callable[[Sequence[Value], Symbols, Picker], Built | None]
    lanes: frozenset[str] = frozenset({"thunder", "exir"})  # where the op is supported
    imports: tuple[str, ...] = ()  # import lines the rendered template needs
    aliases: bool = False  # output 0 may share storage with operand 0 (views, in-place)


BOTH = frozenset({"thunder", "exir"})
EXIR_ONLY = frozenset({"exir"})
THUNDER_ONLY = frozenset({"thunder"})
F_IMPORT = ("import torch.nn.functional as F",)


def op(
    name: str,
    template: str,
    operands: Callable[[Sequence[Value], Symbols], list[tuple[int, ...]]],
    build: Callable[[Sequence[Value], Symbols, Picker], Built | None],
    *,
    family: str,
    lanes: frozenset[str] = BOTH,
    imports: tuple[str, ...] = (),
    aliases: bool = False,
) -> OpSpec:
    """An `OpSpec`: what every op states (name, template, operands, build) in order, and
    its family and what only some ops need (lanes, imports, aliases) by keyword."""
    return OpSpec(name, family, template, operands, build, lanes, imports, aliases)


# ---- operand helpers -------------------------------------------------------------------


def tensors(values: Sequence[Value]) -> list[tuple[int, TensorType]]:
    return [(i, t) for i, t in enumerate(values) if isinstance(t, TensorType)]


def unary(accept: Callable[[TensorType, Symbols], bool] = lambda t, s: True):
    def operands(values, syms):
        return [(i,) for i, t in tensors(values) if accept(t, syms)]

    return operands


def pairs(accept: Callable[[TensorType, TensorType, Symbols], bool]):
    def operands(values, syms):
        ts = tensors(values)
        return [(i, j) for i, a in ts for j, b in ts if accept(a, b, syms)]

    return operands


def with_numbers(
    accept: Callable[[TensorType, Symbols], bool],
    *numerics: tuple[str, ...],
    fits: Callable[[TensorType, tuple[NumberType, ...], Symbols], bool] = lambda t, ns, s: True,
):
    """Operands (tensor, number, ...): one number input per entry of `numerics`, each of
    one of the listed kinds ("int", "scalar"); `fits` vetoes a combination."""

    def operands(values, syms):
        out = []
        for i, t in tensors(values):
            if not accept(t, syms):
                continue
            combos: list[tuple[int, ...]] = [()]
            for kinds in numerics:
                ns = [j for j, n in enumerate(values) if _number_of(n, kinds)]
                combos = [c + (j,) for c in combos for j in ns]
            for c in combos:
                if fits(t, tuple(values[j] for j in c), syms):
                    out.append((i, *c))
        return out

    return operands


def _number_of(value: Value, kinds: tuple[str, ...]) -> bool:
    return isinstance(value, NumberType) and value.numeric in kinds


def typed(*dtypes: str) -> Callable[[TensorType, Symbols], bool]:
    """An operand constraint: the tensor's dtype is one of `dtypes`."""
    allowed = frozenset(dtypes)
    return lambda t, syms: t.dtype in allowed


def float_typed(t: TensorType, syms: Symbols) -> bool:
    return t.dtype in FLOATS


def broadcast_dim(a: sympy.Expr, b: sympy.Expr, syms: Symbols) -> sympy.Expr | None:
    """The broadcast of two dims valid at *every* call, or None if some call would fail."""
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    if syms.partner(a) == b:
        return b
    if syms.partner(b) == a:
        return a
    return None


def broadcast_shape(a: Shape, b: Shape, syms: Symbols) -> Shape | None:
    n = max(len(a), len(b))
    a = (sympy.Integer(1),) * (n - len(a)) + tuple(a)
    b = (sympy.Integer(1),) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        d = broadcast_dim(x, y, syms)
        if d is None:
            return None
        out.append(d)
    return tuple(out)


def broadcast_decisions(a: Shape, b: Shape, syms: Symbols) -> tuple[Decision, ...]:
    """A broadcast symbol meeting its partner decides, per call, whether it expands."""
    out = []
    for x, y in zip(reversed(a), reversed(b)):
        for d in (x, y):
            if syms.kind(d) == "broadcast" and x != y:
                out.append(Decision("broadcast", sympy.Eq(d, 1), f"{d} == 1 (broadcast)"))
    return tuple(out)
