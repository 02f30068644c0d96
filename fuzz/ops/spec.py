"""The vocabulary every op description uses: symbolic tensor types, symbols, decisions.

Shapes are tuples of sympy expressions over three kinds of symbol:
  size       s0, s1, ...  an input dimension in [lo, hi] (lo >= 2, so it never means "1")
  broadcast  b0, b1, ...  an input dimension that is either 1 or equal to its partner size
             symbol, chosen per call: this is how size-1 dims flip between calls
  unbacked   u0, u1, ...  the size of a data-dependent result, in [0, bound]
An op description states which operands it accepts and its symbolic shape rule, so the
generator only ever builds programs that are valid for every call it will make.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import sympy

Shape = tuple[sympy.Expr, ...]


@dataclasses.dataclass(frozen=True)
class SymbolInfo:
    name: str
    kind: str  # "size" | "broadcast" | "unbacked"
    lo: int
    hi: int | None = None  # size: inclusive upper bound; unbacked: None (see bound)
    partner: str | None = None  # broadcast: the size symbol it equals when not 1
    bound: sympy.Expr | None = None  # unbacked: upper bound as an expression


class Symbols:
    """The symbol table of one program, filled while it is decoded."""

    def __init__(self):
        self.info: dict[str, SymbolInfo] = {}

    def _new(self, prefix: str, **kw) -> sympy.Symbol:
        name = f"{prefix}{sum(1 for n in self.info if n.startswith(prefix))}"
        self.info[name] = SymbolInfo(name, **kw)
        return sympy.Symbol(name, integer=True, nonnegative=True)

    def size(self, lo: int, hi: int) -> sympy.Symbol:
        return self._new("s", kind="size", lo=lo, hi=hi)

    def broadcast(self, partner: sympy.Symbol) -> sympy.Symbol:
        return self._new("b", kind="broadcast", lo=1, partner=partner.name)

    def unbacked(self, bound: sympy.Expr) -> sympy.Symbol:
        return self._new("u", kind="unbacked", lo=0, bound=bound)

    def kind(self, e: sympy.Expr) -> str | None:
        """ "size"/"broadcast"/"unbacked" for a bare symbol, None for anything else."""
        return self.info[e.name].kind if isinstance(e, sympy.Symbol) else None

    def partner(self, e: sympy.Expr) -> sympy.Expr | None:
        if self.kind(e) == "broadcast":
            return sympy.Symbol(self.info[e.name].partner, integer=True, nonnegative=True)
        return None

    def has_unbacked(self, e: sympy.Expr) -> bool:
        return any(self.info[s.name].kind == "unbacked" for s in sympy.sympify(e).free_symbols)

    def at_least_one(self, e: sympy.Expr) -> bool:
        """Whether the dim is >= 1 at every call (so it can be sliced, selected, ...)."""
        return not self.has_unbacked(e) and e != 0

    def at_least_two(self, e: sympy.Expr) -> bool:
        syms = sympy.sympify(e).free_symbols
        return (
            bool(syms)
            and all(self.info[s.name].kind == "size" for s in syms)
            and (not isinstance(e, sympy.Add))
        )

    def range(self, e: sympy.Expr) -> tuple[int, int]:
        """Smallest and largest value of a backed expression over all calls."""
        subs_lo, subs_hi = {}, {}
        for s in sympy.sympify(e).free_symbols:
            info = self.info[s.name]
            if info.kind == "size":
                subs_lo[s], subs_hi[s] = info.lo, info.hi
            elif info.kind == "broadcast":
                subs_lo[s], subs_hi[s] = 1, self.info[info.partner].hi
            else:
                raise ValueError(f"{s} is unbacked; it has no static range")
        return int(sympy.sympify(e).subs(subs_lo)), int(sympy.sympify(e).subs(subs_hi))


@dataclasses.dataclass(frozen=True)
class TensorType:
    shape: Shape
    dtype: str = "float32"
    writable: bool = True  # False for expanded tensors and views of them (in-place would fail)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def numel(self) -> sympy.Expr:
        return sympy.Mul(*self.shape) if self.shape else sympy.Integer(1)


@dataclasses.dataclass(frozen=True)
class Decision:
    """A shape decision the program takes: which way it goes is `predicate` at a call's sizes.

    `predicate` is None for data-dependent decisions (e.g. torch.cond on a tensor value).
    """

    kind: str
    predicate: sympy.Basic | None
    text: str

    def outcome(self, sizes: dict[str, int]):
        if self.predicate is None:
            return None
        value = self.predicate.subs(
            {sympy.Symbol(k, integer=True, nonnegative=True): v for k, v in sizes.items()}
        )
        return bool(value) if value in (sympy.true, sympy.false) else int(value)

    @property
    def symbols(self) -> set[str]:
        return (
            {s.name for s in self.predicate.free_symbols} if self.predicate is not None else set()
        )


class Picker:
    """Turns one gene (a tuple of non-negative ints drawn by Hypothesis) into choices.

    Every choice is `gene[i] % len(options)`, so any gene decodes to a valid choice and
    shrinking a gene towards zeros moves every choice towards the first option.
    """

    def __init__(self, gene: Sequence[int]):
        self.gene, self.i = tuple(gene), 0

    def index(self, n: int) -> int:
        if n <= 0:
            raise ValueError("nothing to pick from")
        value = self.gene[self.i % len(self.gene)] if self.gene else 0
        self.i += 1
        return value % n

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.index(len(options))]

    def integer(self, lo: int, hi: int) -> int:
        return lo + self.index(hi - lo + 1)

    def flag(self) -> bool:
        return bool(self.index(2))


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
    operands: Callable[[Sequence[TensorType], Symbols], list[tuple[int, ...]]]
    build: Callable[[Sequence[TensorType], Symbols, Picker], Built | None]
    lanes: frozenset[str] = frozenset({"thunder", "exir"})  # where the op is supported


# ---- operand helpers -------------------------------------------------------------------


def unary(accept: Callable[[TensorType, Symbols], bool] = lambda t, s: True):
    def operands(values, syms):
        return [(i,) for i, t in enumerate(values) if accept(t, syms)]

    return operands


def pairs(accept: Callable[[TensorType, TensorType, Symbols], bool]):
    def operands(values, syms):
        return [
            (i, j) for i, a in enumerate(values) for j, b in enumerate(values) if accept(a, b, syms)
        ]

    return operands


def float_typed(t: TensorType, syms: Symbols) -> bool:
    return t.dtype == "float32"


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
