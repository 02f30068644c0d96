"""Expressions over symbolic values, and how a replayed observation is compared.

Every NumberProxy of a trace gets one expression node (see `recorder`):

* `Leaf`: a value the prologue can read back (a number input or an input tensor's size:
  a proxy with a provenance `history`);
* `Op(fn, args)`: the result of a Python operator on proxies, `fn` being the exact
  Python callable (`operator.add`, `math.floor`, a `Select` of `divmod`, ...), so it can
  be replayed on new inputs;
* `Opaque(label, deps)`: made by a Thunder symbol we do not replay; its value depends
  only on `deps` (a decision on it pins those inputs);
* `Unknown`: a number whose origin we did not see (a decision on it pins every input);
* `Const`: a plain value (number, None, tuple or list of plain values).

The nodes are frozen, slotted dataclasses compared by identity (`eq=False`): the code
keys memos and visited sets by `id(node)`, and a field-wise `__eq__`/`__hash__` would
compare or hash NumberProxy fields, which records decisions while tracing.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Const:
    """A plain value: a number, None, or a tuple or list of plain values."""

    value: Any


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Leaf:
    """A value the prologue can read back: a number input or an input tensor's size."""

    proxy: Any


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Op:
    """`fn(*args)` with `fn` a plain Python callable: replayable on new inputs."""

    fn: Any
    args: tuple


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Opaque:
    """Produced by a Thunder symbol we do not replay; its value depends only on `deps`."""

    label: str
    deps: tuple


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Unknown:
    """A number whose origin we did not see (e.g. computed from tensor data or metadata)."""

    proxy: Any


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Select:
    """Element `i` of a tuple-valued operator (`divmod`)."""

    fn: Any
    i: int

    def __call__(self, *args):
        return self.fn(*args)[self.i]

    @property
    def __name__(self):
        return f"{getattr(self.fn, '__name__', 'fn')}[{self.i}]"


_INFIX = {
    operator.eq: "==",
    operator.ne: "!=",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.and_: "&",
    operator.or_: "|",
    operator.xor: "^",
}
_PREFIX = {operator.neg: "-", operator.pos: "+", operator.inv: "~"}


def node_key(node, memo: dict) -> tuple:
    """Structural identity of an expression (the same computation on the same inputs)."""
    k = memo.get(id(node))
    if k is None:
        if isinstance(node, Const):
            k = ("c", type(node.value).__name__, repr(node.value))
        elif isinstance(node, Leaf):
            k = ("l", node.proxy.name)
        elif isinstance(node, Op):
            k = ("o", id(node.fn), *(node_key(a, memo) for a in node.args))
        else:
            k = ("x", id(node))
        memo[id(node)] = k
    return k


def render(node, leaf_text, top=True) -> str:
    """Readable form of an expression; `leaf_text(leaf)` names the leaves."""
    if isinstance(node, Const):
        return repr(node.value)
    if isinstance(node, Leaf):
        return leaf_text(node)
    if isinstance(node, Op):
        args = [render(a, leaf_text, top=False) for a in node.args]
        if node.fn in _INFIX and len(args) == 2:
            s = f"{args[0]} {_INFIX[node.fn]} {args[1]}"
            return s if top else f"({s})"
        if node.fn in _PREFIX and len(args) == 1:
            return f"{_PREFIX[node.fn]}{args[0]}"
        return f"{getattr(node.fn, '__name__', 'fn')}({', '.join(args)})"
    if isinstance(node, Opaque):
        return f"{node.label}(...)"
    return "?"


def leaves_of(node, out: dict, seen: set) -> bool:
    """Collects the leaves under `node` into `out` (by proxy name); False if any is unknown."""
    if id(node) in seen:
        return True
    seen.add(id(node))
    if isinstance(node, Leaf):
        out.setdefault(node.proxy.name, node)
        return True
    if isinstance(node, Unknown):
        return False
    children = node.args if isinstance(node, Op) else node.deps if isinstance(node, Opaque) else ()
    ok = True
    for c in children:
        ok = leaves_of(c, out, seen) and ok
    return ok


def has_opaque(node) -> bool:
    if isinstance(node, Opaque):
        return True
    return isinstance(node, Op) and any(has_opaque(a) for a in node.args)


def raw_value(proxy):
    # The traced value, read without going through the recording `.value` descriptor.
    return proxy.__dict__.get("value")


def evaluate(node, env: dict):
    """Replays `node` with leaf values from `env` (proxy name -> value)."""
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Leaf):
        return env[node.proxy.name]
    if isinstance(node, Op):
        return node.fn(*(evaluate(a, env) for a in node.args))
    raise TypeError("not replayable")


def same_value(a, b) -> bool:
    return a == b or (a != a and b != b)  # a NaN observed must stay NaN


# How an observation is compared on replay: kind -> (failure condition, readable form).
KINDS = {
    "bool": ("bool({v}) is not {o}", "bool({e}) is {r!r}"),
    "index": ("_index({v}) != {o}", "index({e}) == {r!r}"),
    "int": ("int({v}) != {o}", "int({e}) == {r!r}"),
    "float": ("not same_value(float({v}), {o})", "float({e}) == {r!r}"),
    "complex": ("not same_value(complex({v}), {o})", "complex({e}) == {r!r}"),
    "hash": ("hash({v}) != {o}", "hash({e}) == {r!r}"),
    "value": ("type({v}) is not type({o}) or not same_value({v}, {o})", "{e} == {r!r}"),
}


def holds(kind: str, value, observed) -> bool:
    ns = {"same_value": same_value, "_index": operator.index, "v": value, "o": observed}
    return not eval(KINDS[kind][0].format(v="v", o="o"), ns)


# A size compared with itself: the outcome is fixed (sizes are ints, never NaN).
REFLEXIVE = {operator.eq: True, operator.le: True, operator.ge: True}
REFLEXIVE.update({operator.ne: False, operator.lt: False, operator.gt: False})


def always_holds(node, kind, observed) -> bool:
    """`bool(s == s) is True` and the like for an input tensor's size `s` (`cat_meta` and
    the broadcast helpers compare a size with itself): no call can change it."""
    return (
        kind == "bool"
        and isinstance(node, Op)
        and len(node.args) == 2
        and node.args[0] is node.args[1]
        and isinstance(node.args[0], Leaf)
        and REFLEXIVE.get(node.fn) is observed
        and is_tensor_size(node.args[0].proxy)
    )


def is_tensor_size(proxy) -> bool:
    """A size of an input tensor: BINARY_SUBSCR(LOAD_ATTR(<tensor>, 'shape'), i)."""
    from thunder.core.interpreter import PseudoInst

    try:
        src = proxy.history.inputs[0]
        return src.inst is PseudoInst.LOAD_ATTR and src.inputs[1].value == "shape"
    except (AttributeError, IndexError):
        return False
