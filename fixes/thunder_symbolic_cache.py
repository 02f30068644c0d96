"""Fix: Thunder 0.2.6 `cache="symbolic values"` reuses traces whose decisions no longer hold.

Upstream: https://github.com/Lightning-AI/lightning-thunder/issues/1525
("unexpected cache hit with symbolic values cache").

Cause
-----
Under `cache="symbolic values"` a cache entry is a (prologue, computation) pair, and a call
hits the first entry whose prologue runs without raising. Tensor sizes and number inputs
are traced as `NumberProxy` objects, so the computation is meant to be valid for any value
of them. But while tracing, Python code (the user's function and Thunder's own operators)
keeps *deciding* things from the concrete value each proxy carries:

* `if a.shape[0] == 2:`, `tuple(a.shape) == (2, 2)`, `all(d > 1 for d in a.shape)`: the
  comparison yields an `IntegerProxy(bool)` whose `__bool__` returns the traced value;
* `range(a.shape[0])`, `lst[n]`: `__index__`; `math.sqrt(n)`: `__float__`; `int(n)`;
  `{2: x}[a.shape[0]]`: `__hash__` (then `__eq__` + `__bool__`);
* broadcasting (`clang.utils.compute_broadcast_shape`, `expand_impl`,
  `maybe_broadcast_impl`, `prims.broadcast_in_dim_meta`) branches on `dim == 1` the same way;
* some Thunder code reads `proxy.value` directly (`utils.check_no_duplicates`, `pyval`, ...).

None of these become prologue checks. `propagate_constraints` only pins *number inputs*
reached from proxies marked static (by the interpreter's `bool` lookaside), and it stops at
`prims.shape`, so decisions on tensor sizes are lost; conversions called from C
(`tuple.__eq__`, `range`, dict lookup) or from Thunder's own code are not even marked.
The prologue's tensor check compares each size with itself. Number inputs are not
type-checked (an entry traced for `int` accepts a `float`). A later call whose inputs would
take another branch therefore hits a trace built for the old branch.

Design
------
While `thunder_general_jit` traces under symbolic values, a per-trace `_Recorder` keeps

1. an *expression* for every NumberProxy of the trace: a `_Leaf` for values the prologue
   can read back (number inputs and input-tensor sizes: proxies with a provenance
   `history`); an `_Op(fn, args)` for results of Python operators on proxies, recorded in
   `NumberProxy._elementwise_{unary,binary}_helper`, which receive the exact Python
   operator `fn`; an `_Opaque(deps)` for numbers any other Thunder symbol made from numbers
   (recorded in `Symbol.__call__`); `_Unknown` for anything else;
2. a *decision log*: every time Python observes a proxy's value (`__bool__`, `__index__`,
   `__int__`, `__float__`, `__complex__`, `__hash__`, a plain-number result of a proxy
   operation, a `.value` read by code that does not merely propagate it into a new proxy,
   a derived proxy Thunder marked static), the expression and the value observed.

When the prologue is built (`unpack_inputs`), the log becomes one extra prologue check,
`check_symbolic_decisions(leaves...)`: generated Python that recomputes each expression
from the new inputs and raises (a miss) if any decision would go differently. The prologue
trace shows the decisions above the call. Fallbacks, all sound: a decision that depends on
an `_Opaque` number pins the inputs it depends on (their exact values); one that depends
on an `_Unknown` number, or a trace whose recording failed, pins every symbolic input
(every number and tensor size `JitCtx.proxify` made for this trace).
Each replay is first run on the traced values and must reproduce the traced observation,
else that decision is pinned instead. Number inputs also get an exact type check.

One pass after tracing decides on symbolic sizes too: when inputs of the call share
storage (Thunder's prologue checks only *which* inputs share storage,
`cache_info["alias_tensor_indices"]`), `insert_alias_updates` replaces one input by another
and compares their shapes to decide whether to reshape it (`arg_to_replace.shape !=
arg.shape`). Stock Thunder therefore serves an entry traced with `x2` *being* `x1` to a
call where `x2` is a smaller view of `x1`, and computes with `x1` (x1-shaped results)
where the default cache misses. For such calls the check takes every symbolic input, and
the decisions logged while `insert_alias_updates` runs are compiled into its alias part
(`_AliasWindow`, shown with "(alias handling)" in the prologue); any failure there pins
every symbolic input.

Two Thunder helpers are adjusted so that they do not create pins or decisions that the
replay makes unnecessary:
* the interpreter's `bool` lookaside no longer marks the proxy static while recording (the
  `__bool__` decision is replayed instead): `if s > 0` then admits any positive `s`,
  where stock Thunder pins `s` to its traced value;
* `utils.same_shape` compares lengths first: `tuple(a) == tuple(b)` compares elements
  before lengths, which records a spurious `b[0] == a[0]` when a 1-D shape is compared
  with a 2-D one during broadcasting.

Nothing is specialised that the trace did not decide: `a + b` on (3, 4) + (3, 4) records
`a.shape[0] == b.shape[0]`-style equalities, so (5, 6) + (5, 6) still hits; `h(a)` with
(2, 3) then (2, 7) hits because only `a.shape[0] == 2` (and `!= 1`) was decided.

Recording leaves the trace as it is: it reads a tensor's sizes through `_shape` (under
symbolic values `TensorProxy.shape` binds `prims.shape(t)` into the trace being built).
The first version read `.shape` on every proxified input, so every input tensor, also an
unused one, became an input of the computation. That is not harmless in Thunder 0.2.6:
its alias handling (`replace_args_with_alias_map`) looks up the positions of inputs that
share storage (`alias_tensor_indices`, counted over the call's arguments) in the
computation's arguments, which only line up when no input was dropped; with the extra
inputs they lined up, and the known merge of disjoint views of one base (see
corpus/thunder_disjoint_views_inplace.py) then rewrote `f(x1, x2)` with unused `x1`,
called on the two halves of one tensor, to compute with `x1` in place of `x2`, where
stock Thunder (and the default cache) leave `x2` alone. The computation's inputs are now
the stock ones (tested for every case of tests/fixes/test_thunder_symbolic_cache.py).

The recording code never runs under Thunder's interpreter: the wrappers that the
interpreter may step through call the originals and then `_record_*` functions that are
registered as opaque lookasides (interpreting them would be slow and would see
interpreter frames instead of the reader's).

Not covered / limits: decisions on values that never pass through a NumberProxy (rank,
dtype, device, requires_grad: the stock prologue checks those); decisions taken by
Thunder's passes after tracing other than the alias handling (autograd, executor
passes); reads of
`proxy.__dict__["value"]`; numbers of `_Unknown` origin are handled only by pinning
everything; entries traced before the fix was applied keep their old prologues. Every
decision counts, also one whose outcome did not change the trace (Thunder's broadcast
check evaluates `d == 1` for a tensor's own sizes, so a size that becomes 1 misses).

Everything is a runtime monkeypatch, installed once by `_install()`; site-packages is not
modified. The patches do nothing outside `cache="symbolic values"` tracing.
"""

from __future__ import annotations

import functools
import operator
import sys
import threading
from numbers import Number
from typing import Any

from packaging.version import Version

from fixes._registry import Fix, register

FIX_NAME = "thunder-symbolic-cache"
UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1525"

_install_lock = threading.Lock()
_installed = False
_originals: dict[str, Any] = {}

# The recorder of the trace being built on this thread (None when not tracing under
# symbolic values). Thread-local because Thunder may trace in several threads.
_local = threading.local()


def _current() -> _Recorder | None:
    rec = getattr(_local, "recorder", None)
    if rec is not None and rec.recording:
        return rec
    return None


class SymbolicDecisionChanged(AssertionError):
    """Raised by the generated prologue check: a traced decision would go differently.

    An AssertionError like Thunder's other prologue checks; any exception is a cache miss.
    """


# --------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------


class _Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Leaf:
    """A value the prologue can read back: a number input or an input tensor's size."""

    __slots__ = ("proxy",)

    def __init__(self, proxy):
        self.proxy = proxy


class _Op:
    """`fn(*args)` with `fn` a plain Python callable: replayable on new inputs."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, args):
        self.fn = fn
        self.args = args


class _Opaque:
    """Produced by a Thunder symbol we do not replay; its value depends only on `deps`."""

    __slots__ = ("label", "deps")

    def __init__(self, label, deps):
        self.label = label
        self.deps = deps


class _Unknown:
    """A number whose origin we did not see (e.g. computed from tensor data or metadata)."""

    __slots__ = ("proxy",)

    def __init__(self, proxy):
        self.proxy = proxy


class _Select:
    """Element `i` of a tuple-valued operator (`divmod`)."""

    __slots__ = ("fn", "i")

    def __init__(self, fn, i):
        self.fn, self.i = fn, i

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


def _key(node, memo: dict) -> tuple:
    """Structural identity of an expression (the same computation on the same inputs)."""
    k = memo.get(id(node))
    if k is None:
        if isinstance(node, _Const):
            k = ("c", type(node.value).__name__, repr(node.value))
        elif isinstance(node, _Leaf):
            k = ("l", node.proxy.name)
        elif isinstance(node, _Op):
            k = ("o", id(node.fn), *(_key(a, memo) for a in node.args))
        else:
            k = ("x", id(node))
        memo[id(node)] = k
    return k


def _render(node, leaf_text, top=True) -> str:
    """Readable form of an expression; `leaf_text(leaf)` names the leaves."""
    if isinstance(node, _Const):
        return repr(node.value)
    if isinstance(node, _Leaf):
        return leaf_text(node)
    if isinstance(node, _Op):
        args = [_render(a, leaf_text, top=False) for a in node.args]
        if node.fn in _INFIX and len(args) == 2:
            s = f"{args[0]} {_INFIX[node.fn]} {args[1]}"
            return s if top else f"({s})"
        if node.fn in _PREFIX and len(args) == 1:
            return f"{_PREFIX[node.fn]}{args[0]}"
        return f"{getattr(node.fn, '__name__', 'fn')}({', '.join(args)})"
    if isinstance(node, _Opaque):
        return f"{node.label}(...)"
    return "?"


def _leaves(node, out: dict, seen: set) -> bool:
    """Collects the leaves under `node` into `out` (by proxy name); False if any is unknown."""
    if id(node) in seen:
        return True
    seen.add(id(node))
    if isinstance(node, _Leaf):
        out.setdefault(node.proxy.name, node)
        return True
    if isinstance(node, _Unknown):
        return False
    children = (
        node.args if isinstance(node, _Op) else node.deps if isinstance(node, _Opaque) else ()
    )
    ok = True
    for c in children:
        ok = _leaves(c, out, seen) and ok
    return ok


def _has_opaque(node) -> bool:
    if isinstance(node, _Opaque):
        return True
    return isinstance(node, _Op) and any(_has_opaque(a) for a in node.args)


def _raw_value(proxy):
    # The traced value, read without going through the recording `.value` descriptor.
    return proxy.__dict__.get("value")


def _evaluate(node, env: dict):
    """Replays `node` with leaf values from `env` (proxy name -> value)."""
    if isinstance(node, _Const):
        return node.value
    if isinstance(node, _Leaf):
        return env[node.proxy.name]
    if isinstance(node, _Op):
        return node.fn(*(_evaluate(a, env) for a in node.args))
    raise TypeError("not replayable")


def _same(a, b) -> bool:
    return a == b or (a != a and b != b)  # a NaN observed must stay NaN


# How an observation is compared on replay: kind -> (failure condition, readable form).
_KINDS = {
    "bool": ("bool({v}) is not {o}", "bool({e}) is {r!r}"),
    "index": ("_index({v}) != {o}", "index({e}) == {r!r}"),
    "int": ("int({v}) != {o}", "int({e}) == {r!r}"),
    "float": ("not _same(float({v}), {o})", "float({e}) == {r!r}"),
    "complex": ("not _same(complex({v}), {o})", "complex({e}) == {r!r}"),
    "hash": ("hash({v}) != {o}", "hash({e}) == {r!r}"),
    "value": ("type({v}) is not type({o}) or not _same({v}, {o})", "{e} == {r!r}"),
}


def _holds(kind: str, value, observed) -> bool:
    ns = {"_same": _same, "_index": operator.index, "v": value, "o": observed}
    return not eval(_KINDS[kind][0].format(v="v", o="o"), ns)


# --------------------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------------------


class _Recorder:
    """Expressions and decisions of one `thunder_general_jit` trace under symbolic values."""

    def __init__(self, NumberProxy, TensorProxy):
        self.NumberProxy = NumberProxy
        self.TensorProxy = TensorProxy
        self.nodes: dict[int, Any] = {}  # id(NumberProxy) -> node
        self.keep: list = []  # keeps recorded proxies alive, so their ids stay unique
        self.decisions: list[tuple[Any, str, Any]] = []
        self.recording = True
        # Set when recording itself failed: the log may be incomplete, so the check pins
        # every symbolic input instead (sound), and tracing goes on undisturbed.
        self.broken = False
        # The part of the prologue check that Thunder's input-alias handling fills in
        # (`_AliasWindow`); None when this call has no inputs that share storage.
        self.alias_window: _AliasWindow | None = None

    def guarded(self, method, *args):
        try:
            method(*args)
        except Exception:
            self.broken = True

    def node(self, x):
        if isinstance(x, self.NumberProxy):
            n = self.nodes.get(id(x))
            if n is None:
                # Proxies with a provenance are inputs the prologue can unpack again.
                n = _Leaf(x) if x.history is not None else _Unknown(x)
                self.nodes[id(x)] = n
                self.keep.append(x)
            return n
        if isinstance(x, Number) or x is None:
            return _Const(x)
        if isinstance(x, (tuple, list)) and not any(isinstance(i, self.NumberProxy) for i in x):
            return _Const(x)
        return None  # a tensor or something else we cannot replay

    def derive(self, result, fn, args):
        """`result = fn(*args)`, a Python operator applied to proxies."""
        arg_nodes = [self.node(a) for a in args]
        if any(n is None for n in arg_nodes):
            return
        outs = [(result, fn)]
        if isinstance(result, tuple):  # divmod
            outs = [(r, _Select(fn, i)) for i, r in enumerate(result)]
        for r, f in outs:
            if isinstance(r, self.NumberProxy):
                # Overrides what derive_from_symbol recorded for the inner prim call: the
                # Python operator is the exact semantics to replay.
                self.nodes[id(r)] = _Op(f, tuple(arg_nodes))
                self.keep.append(r)
            elif isinstance(r, Number) and any(isinstance(a, self.NumberProxy) for a in args):
                # Evaluated eagerly (no trace context): the value escaped into plain Python.
                self.decisions.append((_Op(f, tuple(arg_nodes)), "value", r))

    def derive_from_symbol(self, sym, args, kwargs, result):
        """Numbers produced by any Thunder symbol: remember what they depend on."""
        from thunder.core.pytree import tree_flatten

        flat_out, _ = tree_flatten(result)
        new = [
            r
            for r in flat_out
            if isinstance(r, self.NumberProxy) and id(r) not in self.nodes and r.history is None
        ]
        if not new:
            return
        flat_in, _ = tree_flatten((args, kwargs))
        deps = []
        for a in flat_in:
            if isinstance(a, self.NumberProxy):
                deps.append(self.node(a))
            elif isinstance(a, self.TensorProxy):
                deps = None  # depends on tensor data or metadata we do not model
                break
        for r in new:
            self.nodes[id(r)] = _Opaque(sym.name, tuple(deps)) if deps is not None else _Unknown(r)
            self.keep.append(r)

    def decide(self, proxy, kind, observed):
        if observed is not None:
            self.decisions.append((self.node(proxy), kind, observed))

    # ----------------------------------------------------------------------------------

    def build_check(self, pro_to_comp, inputs_alias: bool = False):
        """Turns the decision log into a prologue constraint `(emit, *leaf_proxies)`.

        With `inputs_alias` (some inputs of this call share storage, so Thunder's alias
        handling will compare their sizes after tracing), the check also takes every
        symbolic input and leaves room for those decisions (`self.alias_window`)."""
        self.alias_window = None
        if not self.broken:
            try:
                return self._build_check(pro_to_comp, inputs_alias)
            except Exception:
                pass  # a bug here must not cost soundness: pin every symbolic input instead
        # Everything pinned: later decisions (alias handling) are then determined too.
        self.alias_window = None
        all_leaves, typed = self._inputs(pro_to_comp)
        checks = [(leaf, "value", _raw_value(leaf.proxy)) for leaf in all_leaves.values()]
        return _compile_check(checks, typed, {})[0] if checks or typed else None

    def add_input(self, p):
        """An input proxified by the interpreter: its number leaves (for pinning them all)."""
        if isinstance(p, self.TensorProxy):
            # `p._shape`, not `p.shape`: under symbolic values, while a trace is being
            # built, `TensorProxy.shape` binds `prims.shape(p)` into that trace. Reading it
            # here (at proxify time) made every input tensor, even an unused one, an input
            # of the computation, which changes what Thunder's alias handling does with it
            # (see `Recording leaves the trace as it is` in the module docstring).
            for s in p._shape:
                self.add_input(s)
        elif isinstance(p, self.NumberProxy) and p.history is not None:
            self.node(p)

    def _inputs(self, pro_to_comp):
        """Every symbolic input value of the trace (by name), and the number inputs."""
        from thunder.core.proxies import unvariableify

        for v in pro_to_comp:
            self.add_input(unvariableify(v))
        all_leaves = {n.proxy.name: n for n in self.nodes.values() if isinstance(n, _Leaf)}
        # Number inputs: their Python type is checked (sizes of input tensors are ints).
        typed = {name: n.proxy for name, n in all_leaves.items() if not _is_tensor_size(n.proxy)}
        return all_leaves, typed

    def _static_derived(self, proxies) -> list:
        # Numbers Thunder itself marked static (bool lookaside, torch.device index, ...):
        # propagate_constraints pins them only when they reach a number input directly, not
        # through prims.shape, so pin the derived ones here too.
        out = []
        for p in proxies:
            node = self.nodes.get(id(p))
            if isinstance(node, (_Op, _Opaque)) and p.is_static_constrained():
                v = _raw_value(p)
                out.append((node, "bool" if type(v) is bool else "value", v))
        return out

    def _build_check(self, pro_to_comp, inputs_alias):
        from thunder.core.proxies import unvariableify

        decisions = list(self.decisions) + self._static_derived(self.keep)
        all_leaves, _ = self._inputs(pro_to_comp)
        # Number inputs the computation uses, and below those decisions depend on: their
        # Python type is checked.
        typed = {
            p.name: p
            for p in (unvariableify(v) for v in pro_to_comp)
            if isinstance(p, self.NumberProxy) and p.history is not None and not _is_tensor_size(p)
        }
        memo: dict = {}
        checks = self._checks(decisions, all_leaves, memo)
        for node, _, _ in checks:
            found: dict[str, _Leaf] = {}
            _leaves(node, found, set())
            for name, leaf in found.items():
                if not _is_tensor_size(leaf.proxy):
                    typed.setdefault(name, leaf.proxy)

        if not checks and not typed and not inputs_alias:
            return None
        constraint, self.alias_window = _compile_check(
            checks, typed, memo, all_leaves if inputs_alias else None
        )
        return constraint

    def _checks(self, decisions, all_leaves, memo) -> list:
        """The checks for a list of decisions: replays, pins of the inputs of decisions that
        cannot be replayed, or of every input in `all_leaves` if one depends on a number of
        unknown origin."""
        checks: dict[tuple, tuple[Any, str, Any]] = {}
        pins: dict[str, _Leaf] = {}
        pin_all = False
        for node, kind, observed in decisions:
            if isinstance(node, _Const):
                continue  # nothing symbolic was decided
            key = (_key(node, memo), kind, type(observed).__name__, repr(observed))
            if key in checks:
                continue
            leaves: dict[str, _Leaf] = {}
            if not _leaves(node, leaves, set()):
                pin_all = True  # depends on a number of unknown origin
            elif not leaves:
                continue  # depends on no input
            elif _has_opaque(node) or not self._replays(node, kind, observed, leaves):
                pins.update(leaves)  # cannot replay: pin the inputs it depends on
            else:
                checks[key] = (node, kind, observed)
        if pin_all:
            pins.update(all_leaves)
            for node, _, _ in decisions:
                _leaves(node, pins, set())

        checks = list(checks.values())
        for leaf in pins.values():
            checks.append((leaf, "value", _raw_value(leaf.proxy)))
        return checks

    def finish_alias_window(self, start: int, keep_start: int) -> None:
        """Compiles the decisions Thunder's alias handling took (those logged from `start`)
        into the alias part of this trace's prologue check."""
        w = self.alias_window
        if w is None:
            return
        try:
            if self.broken:
                raise RuntimeError("recording failed")
            decisions = self.decisions[start:] + self._static_derived(self.keep[keep_start:])
            if not decisions:
                return
            memo: dict = {}
            checks = self._checks(decisions, w.leaves, memo)
            typed = {}
            for node, _, _ in checks:
                found: dict[str, _Leaf] = {}
                _leaves(node, found, set())
                for name, leaf in found.items():
                    if name not in w.index:
                        raise LookupError(f"{name} is not an input of the check")
                    if not _is_tensor_size(leaf.proxy):
                        typed[name] = leaf.proxy
            fn, templates = _generate(checks, typed, memo, w.order, "check_alias_decisions")
        except Exception:
            # Sound fallback: every symbolic input keeps its traced value.
            checks = [(leaf, "value", _raw_value(leaf.proxy)) for leaf in w.leaves.values()]
            fn, templates = _generate(checks, {}, {}, w.order, "check_alias_decisions")
        w.templates.extend(f"{t}  (alias handling)" for t in templates)
        w.fn = fn

    def _replays(self, node, kind, observed, leaves) -> bool:
        # The replay must reproduce the traced observation from the traced values; if it
        # does not (operator semantics we do not mirror, an exception), the caller pins.
        env = {name: _raw_value(leaf.proxy) for name, leaf in leaves.items()}
        try:
            return _holds(kind, _evaluate(node, env), observed)
        except Exception:
            return False


def _is_tensor_size(proxy) -> bool:
    """A size of an input tensor: BINARY_SUBSCR(LOAD_ATTR(<tensor>, 'shape'), i)."""
    from thunder.core.interpreter import PseudoInst

    try:
        src = proxy.history.inputs[0]
        return src.inst is PseudoInst.LOAD_ATTR and src.inputs[1].value == "shape"
    except (AttributeError, IndexError):
        return False


# --------------------------------------------------------------------------------------
# The generated prologue check
# --------------------------------------------------------------------------------------

_LEAF_MARK = "\x00"  # leaf placeholders in descriptions, filled with the prologue's names


class _AliasWindow:
    """The part of a prologue check that is only known after tracing.

    `insert_alias_updates` (run on the finished trace when some inputs of the call share
    storage) compares the sizes of those inputs to decide how to merge them. The check is
    emitted before that, so it takes every symbolic input (`order`, `leaves`) and calls
    `fn` (set by `_Recorder.finish_alias_window`) after its own checks."""

    __slots__ = ("order", "index", "leaves", "templates", "fn")

    def __init__(self, order, leaves, templates):
        self.order = order
        self.index = {name: i for i, name in enumerate(order)}
        self.leaves = leaves
        self.templates = templates  # shared with the printed prologue
        self.fn = None


def _compile_check(checks, typed, memo, alias_leaves=None):
    """Generates `check_symbolic_decisions(*leaves)`; returns the prologue constraint and,
    with `alias_leaves` (every symbolic input), the `_AliasWindow` the check also runs."""
    leaf_proxies: dict[str, Any] = {}
    for node, _, _ in checks:
        found: dict[str, _Leaf] = {}
        _leaves(node, found, set())
        for name, leaf in found.items():
            leaf_proxies.setdefault(name, leaf.proxy)
    for name, p in typed.items():
        leaf_proxies.setdefault(name, p)
    for name, leaf in (alias_leaves or {}).items():
        leaf_proxies.setdefault(name, leaf.proxy)
    order = list(leaf_proxies)
    name = "check_symbolic_decisions"
    fn, templates = _generate(checks, typed, memo, order, name)
    window = None
    if alias_leaves is not None:
        window = _AliasWindow(order, dict(alias_leaves), templates)
        own = fn

        def check_symbolic_decisions(*leaves):
            own(*leaves)
            later = window.fn
            if later is not None:
                later(*leaves)

        check_symbolic_decisions.__source__ = own.__source__
        fn = check_symbolic_decisions

    def emit_into_prologue(*leaves):
        _check_symbol(fn, templates)(*leaves)

    return (emit_into_prologue, *(leaf_proxies[n] for n in order)), window


def _generate(checks, typed, memo, order, fn_name):
    """The Python function `fn_name(L0, L1, ...)` (leaves in `order`) raising on a changed
    decision, and the readable form of each check."""
    index = {name: i for i, name in enumerate(order)}

    ns: dict[str, Any] = {
        "_Changed": SymbolicDecisionChanged,
        "_same": _same,
        "_index": operator.index,
    }
    names_of: dict[int, str] = {}  # id(constant or function) -> its name in `ns`

    def obj(v) -> str:
        if id(v) not in names_of:
            names_of[id(v)] = f"_k{len(names_of)}"
            ns[names_of[id(v)]] = v  # (also keeps v alive, so its id stays unique)
        return names_of[id(v)]

    body: list[str] = []
    temps: dict[tuple, str] = {}  # structural key -> local name (common subexpressions)

    def emit(node) -> str:
        if isinstance(node, _Const):
            return obj(node.value)
        if isinstance(node, _Leaf):
            return f"L{index[node.proxy.name]}"
        k = _key(node, memo)
        if k not in temps:
            args = [emit(a) for a in node.args]
            temps[k] = f"t{len(temps)}"
            body.append(f"    {temps[k]} = {obj(node.fn)}({', '.join(args)})")
        return temps[k]

    def placeholder(leaf) -> str:
        return f"{_LEAF_MARK}{index[leaf.proxy.name]}{_LEAF_MARK}"

    templates = []
    for name, p in typed.items():
        t = p.python_type
        text = f"type({_LEAF_MARK}{index[name]}{_LEAF_MARK}) is {t.__name__}"
        templates.append(text)
        body.append(f"    if type(L{index[name]}) is not {obj(t)}:")
        body.append(f"        raise _Changed({_describe_error(text, order)!r})")
    for node, kind, observed in checks:
        fail, readable = _KINDS[kind]
        text = readable.format(e=_render(node, placeholder), r=observed)
        templates.append(text)
        body.append(f"    if {fail.format(v=emit(node), o=obj(observed))}:")
        body.append(f"        raise _Changed({_describe_error(text, order)!r})")

    body.append("    return None")
    src = (
        f"def {fn_name}({', '.join(f'L{i}' for i in range(len(order)))}):\n"
        + "\n".join(body)
        + "\n"
    )
    exec(compile(src, f"<{FIX_NAME}>", "exec"), ns)
    fn = ns[fn_name]
    fn.__source__ = src  # for debugging: the generated check
    return fn, templates


def _describe_error(text, order) -> str:
    parts = text.split(_LEAF_MARK)
    for i in range(1, len(parts), 2):
        parts[i] = order[int(parts[i])]
    return "symbolic-values cache entry does not apply: the trace required " + "".join(parts)


def _check_symbol(fn, templates):
    """A prologue symbol calling `fn`, printed with the decisions it replays above it."""
    from thunder.core import codeutils
    from thunder.core.prims import OpTags
    from thunder.core.symbol import Symbol, default_python_printer

    name = fn.__name__

    def printer(bsym, out_printables, arg_printables, kwarg_printables):
        # Leaves are named as they are in the printed prologue (renames happen after binding).
        names = [codeutils.prettyprint(a) for a in arg_printables]
        lines = [f"# {FIX_NAME}: decisions taken while tracing, replayed on each call:"]
        for t in templates:
            parts = t.split(_LEAF_MARK)
            for i in range(1, len(parts), 2):
                parts[i] = names[int(parts[i])]
            lines.append("#   " + "".join(parts))
        lines.append(default_python_printer(bsym, out_printables, arg_printables, kwarg_printables))
        return lines

    def bind_postprocess(bsym):
        bsym._call_ctx = {name: fn}  # the generated prologue resolves `name` here

    return Symbol(
        name=name,
        id=f"{FIX_NAME}.{name}",
        meta=lambda *args: None,
        is_prim=True,
        tags=[OpTags.DONT_DCE],
        python_printer=printer,
        python_impl=fn,  # kept as is by transform_for_execution(pythonex)
        _bind_postprocess=bind_postprocess,
    )


# --------------------------------------------------------------------------------------
# Reads of `NumberProxy.value`
# --------------------------------------------------------------------------------------

# Code that reads a proxy's value only to propagate it into a new proxy (or to print it)
# is not a decision. `_PASS_THROUGH` functions just hand the value to their caller, which
# is judged instead.
_BENIGN_CODES: set = set()
_PASS_THROUGH_CODES: set = set()


def _codes_of(obj) -> set:
    out = set()
    code = getattr(obj, "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        out.add(c)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return out


class _RecordedValue:
    """Data descriptor replacing the `value` attribute of NumberProxy instances."""

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if _current() is None:  # not recording: a plain attribute read
            try:
                return obj.__dict__["value"]
            except KeyError:
                raise AttributeError("value") from None
        # The reader: the first caller that is not a pass-through helper.
        frame = sys._getframe(1)
        while frame is not None and frame.f_code in _PASS_THROUGH_CODES:
            frame = frame.f_back
        return _read_value(obj, frame.f_code if frame is not None else None)

    def __set__(self, obj, v):
        obj.__dict__["value"] = v


def _interpreted_value_get(descriptor, obj, objtype=None):
    """`_RecordedValue.__get__` when Thunder's interpreter runs the reading code: the
    reader is the innermost interpreted frame that is not a pass-through helper."""
    if obj is None:
        return descriptor
    from thunder.core.interpreter import get_interpreterruntimectx

    code = None
    for frame in reversed(get_interpreterruntimectx().frame_stack):
        if frame.code not in _PASS_THROUGH_CODES:
            code = frame.code
            break
    return _read_value(obj, code)


def _read_value(obj, reader_code):
    try:
        v = obj.__dict__["value"]
    except KeyError:
        raise AttributeError("value") from None
    rec = _current()
    if rec is not None and v is not None and reader_code not in _BENIGN_CODES:
        rec.guarded(rec.decide, obj, "value", v)
    return v


# The recording entry points called by the wrappers; registered as opaque lookasides.
def _record_observation(kind, proxy, observed):
    rec = _current()
    if rec is not None:
        rec.guarded(rec.decide, proxy, kind, observed)


def _record_binary(result, fn, a, b):
    rec = _current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a, b))


def _record_unary(result, fn, a):
    rec = _current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a,))


# --------------------------------------------------------------------------------------
# Installation
# --------------------------------------------------------------------------------------


def _install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        from fixes.compat_thunder_named_tensor import import_thunder

        thunder = import_thunder()
        import thunder.core.jit_ext as jit_ext
        import thunder.core.prims as prims
        import thunder.core.proxies as proxies
        import thunder.core.utils as tutils
        from thunder.core.compile_data import get_cache_option
        from thunder.core.options import CACHE_OPTIONS
        from thunder.core.symbol import Symbol

        NumberProxy, IntegerProxy, TensorProxy = (
            proxies.NumberProxy,
            proxies.IntegerProxy,
            proxies.TensorProxy,
        )

        # Collected before anything is patched: the original method code objects.
        _BENIGN_CODES.update(_benign_code_objects(proxies, prims, tutils, NumberProxy))
        _PASS_THROUGH_CODES.update(
            _codes_of(proxies.pyval) | _codes_of(tutils.get_numberlike_value)
        )

        # The wrappers below may themselves be run by Thunder's interpreter (it interprets
        # `NumberProxy.__bool__`, the operator helpers, ... when user code calls them). They
        # only call the original (interpreted exactly as before) and then one of the
        # `_record_*` functions, which are registered as opaque lookasides: the recording
        # always runs as plain Python, never interpreted.
        for record in (_record_observation, _record_unary, _record_binary):
            jit_ext._general_jit_lookaside_map[record] = jit_ext.interpreter_needs_wrap(record)

        # The wrappers reach them through closure cells, not module globals: an interpreted
        # LOAD_GLOBAL in this module costs the interpreter milliseconds.
        record_observation, record_unary, record_binary = (
            _record_observation,
            _record_unary,
            _record_binary,
        )

        # 1. Conversions: the value Python observes.
        def observing(kind, original):
            @functools.wraps(original)
            def method(self, *args):
                result = original(self, *args)
                record_observation(kind, self, result)
                return result

            return method

        for cls, attr, kind in (
            (NumberProxy, "__bool__", "bool"),
            (NumberProxy, "__int__", "int"),
            (NumberProxy, "__float__", "float"),
            (NumberProxy, "__complex__", "complex"),
            (NumberProxy, "__hash__", "hash"),
            (IntegerProxy, "__index__", "index"),
        ):
            original = cls.__dict__[attr]
            _originals[f"{cls.__name__}.{attr}"] = original
            setattr(cls, attr, observing(kind, original))

        # 2. Python operators on proxies: the exact Python function is passed in as `fn`.
        bin_helper = NumberProxy.__dict__["_elementwise_binary_helper"].__func__
        un_helper = NumberProxy.__dict__["_elementwise_unary_helper"].__func__
        _originals["NumberProxy._elementwise_binary_helper"] = bin_helper
        _originals["NumberProxy._elementwise_unary_helper"] = un_helper

        @functools.wraps(bin_helper)
        def binary_helper(a, b, name, fn, type_promotion_kind=None):
            result = bin_helper(a, b, name, fn, type_promotion_kind)
            record_binary(result, fn, a, b)
            return result

        @functools.wraps(un_helper)
        def unary_helper(a, name, fn, type_promotion_kind=None):
            result = un_helper(a, name, fn, type_promotion_kind)
            record_unary(result, fn, a)
            return result

        NumberProxy._elementwise_binary_helper = staticmethod(binary_helper)
        NumberProxy._elementwise_unary_helper = staticmethod(unary_helper)

        # 3. Numbers made by any other symbol (direct prim calls inside Thunder): remember
        #    their inputs so a decision on them can at least pin those inputs. (Symbols are
        #    always called as plain Python: the interpreter looks them aside.)
        sym_call = Symbol.__call__
        _originals["Symbol.__call__"] = sym_call

        @functools.wraps(sym_call)
        def symbol_call(self, *args, **kwargs):
            result = sym_call(self, *args, **kwargs)
            rec = _current()
            if rec is not None:
                rec.guarded(rec.derive_from_symbol, self, args, kwargs, result)
            return result

        Symbol.__call__ = symbol_call

        # 4. Every input the interpreter proxifies (number inputs, tensor sizes), so that the
        #    fallback "pin every symbolic input" really covers all of them.
        proxify = jit_ext.JitCtx.proxify
        _originals["JitCtx.proxify"] = proxify

        @functools.wraps(proxify)
        def proxify_and_register(self, value):
            p = proxify(self, value)
            rec = _current()
            if rec is not None:
                rec.guarded(rec.add_input, p)
            return p

        jit_ext.JitCtx.proxify = proxify_and_register

        # 5. Direct `.value` reads outside value propagation. Plain Python reads go through
        #    the descriptor; reads in interpreted code reach the descriptor's `__get__`
        #    through the interpreter, which we look aside so the reader is the interpreted
        #    frame (not the interpreter's own).
        NumberProxy.value = _RecordedValue()
        jit_ext._general_jit_lookaside_map[_RecordedValue.__get__] = jit_ext.interpreter_needs_wrap(
            _interpreted_value_get
        )

        # 6. `bool()` in interpreted code: Thunder's lookaside marks the proxy static, and
        #    propagate_constraints then pins every number input it derives from to its exact
        #    value (or nothing at all when the chain goes through prims.shape). The decision
        #    itself is recorded by `NumberProxy.__bool__` and replayed, so while recording we
        #    keep the proxy's constraint as it was: `if s > 0` then admits any positive `s`.
        bool_lookaside = jit_ext._general_jit_lookaside_map[bool]
        _originals["bool_lookaside"] = bool_lookaside

        @functools.wraps(bool_lookaside)
        def bool_lookaside_without_static_pin(wrapped_x):
            x = getattr(wrapped_x, "value", None)
            if _current() is None or not isinstance(x, NumberProxy) or x.is_dynamic():
                return bool_lookaside(wrapped_x)  # (also raises for dynamic proxies, as before)
            constraint = x.constraint
            try:
                return bool_lookaside(wrapped_x)
            finally:
                x.constraint = constraint

        jit_ext._general_jit_lookaside_map[bool] = bool_lookaside_without_static_pin

        # 7. `utils.same_shape(a, b)` is `tuple(a) == tuple(b)`. CPython compares tuples
        #    element by element before it looks at their lengths, so broadcasting (1-D
        #    `b` against 2-D `a`) records `b[0] == a[0]` although the answer is False for
        #    any value: (5, 5) + (5,) would miss a trace made for (2, 3) + (3,). Checking
        #    the lengths first gives the same answer without that spurious decision.
        same_shape = tutils.same_shape
        _originals["same_shape"] = same_shape

        @functools.wraps(same_shape)
        def same_shape_lengths_first(a, b, /):
            if len(a) != len(b):
                return False
            return same_shape(a, b)

        tutils.same_shape = same_shape_lengths_first

        # 8. The recording window, and the prologue check.
        general_jit = jit_ext.thunder_general_jit
        propagate = jit_ext.propagate_constraints
        unpack_inputs = jit_ext.unpack_inputs
        _originals.update(
            thunder_general_jit=general_jit,
            propagate_constraints=propagate,
            unpack_inputs=unpack_inputs,
        )

        @functools.wraps(general_jit)
        def thunder_general_jit(fn, args, kwargs, /, **options):
            if get_cache_option() is not CACHE_OPTIONS.SYMBOLIC_VALUES:
                return general_jit(fn, args, kwargs, **options)
            previous = getattr(_local, "recorder", None)
            rec = _local.recorder = _Recorder(NumberProxy, TensorProxy)
            try:
                result = general_jit(fn, args, kwargs, **options)
            finally:
                _local.recorder = previous
            # Thunder builds the cache entry from this trace next, in this thread; its
            # alias handling then reports to this recorder (see insert_alias_updates below).
            _local.pending = rec if rec.alias_window is not None else None
            return result

        @functools.wraps(propagate)
        def propagate_constraints(ctx, inputs, intermediates, computation_trace):
            # Interpretation is over: what follows builds the prologue and reads values
            # for its own checks, which are not decisions of the traced program.
            rec = getattr(_local, "recorder", None)
            if rec is not None:
                rec.recording = False
            return propagate(ctx, inputs, intermediates, computation_trace)

        @functools.wraps(unpack_inputs)
        def unpack_inputs_with_decisions(
            ctx, prologue_trace, pro_to_comp_inps, pro_to_epi_inps, args, kwargs
        ):
            rec = getattr(_local, "recorder", None)
            if rec is not None:
                rec.recording = False
                # Inputs sharing storage: the alias handling will decide on their sizes.
                inputs_alias = bool(thunder._get_cache_info().get("alias_tensor_indices"))
                constraint = rec.build_check(pro_to_comp_inps, inputs_alias)
                if constraint is not None:
                    # Appended after Thunder's own constraints (tensor metadata first); the
                    # original unpacks every Proxy argument, then calls constraint[0](*args)
                    # inside the prologue trace context.
                    ctx._constraints.append(constraint)
            return unpack_inputs(
                ctx, prologue_trace, pro_to_comp_inps, pro_to_epi_inps, args, kwargs
            )

        # 9. Thunder's input-alias handling (see the module docstring). When inputs of
        #    the call share storage, `insert_alias_updates` (run on the finished trace, before the
        #    cache entry is made) replaces an input by another one, reshaped when their
        #    shapes differ: `arg_to_replace.shape != arg.shape` is a decision on symbolic
        #    sizes, taken after the prologue check was emitted. It is recorded like the
        #    others and compiled into the check's alias part (`_AliasWindow`), so an entry
        #    traced with `x2` *being* `x1` does not serve `x1` and a smaller view `x2` of it.
        alias_updates = thunder.insert_alias_updates
        _originals["insert_alias_updates"] = alias_updates

        @functools.wraps(alias_updates)
        def insert_alias_updates_recorded(computation_trace, alias_tensor_indices):
            rec = getattr(_local, "pending", None)
            _local.pending = None
            symbolic = get_cache_option() is CACHE_OPTIONS.SYMBOLIC_VALUES
            if rec is None or rec.alias_window is None or not symbolic:
                return alias_updates(computation_trace, alias_tensor_indices)
            start, keep_start = len(rec.decisions), len(rec.keep)
            previous = getattr(_local, "recorder", None)
            _local.recorder, rec.recording = rec, True
            try:
                return alias_updates(computation_trace, alias_tensor_indices)
            finally:
                rec.recording = False
                _local.recorder = previous
                rec.finish_alias_window(start, keep_start)

        jit_ext.thunder_general_jit = thunder_general_jit
        thunder.thunder_general_jit = thunder_general_jit  # acquire_initial_trace looks it up here
        jit_ext.propagate_constraints = propagate_constraints
        jit_ext.unpack_inputs = unpack_inputs_with_decisions
        thunder.insert_alias_updates = insert_alias_updates_recorded  # the cache entry's builder
        _installed = True


def _benign_code_objects(proxies, prims, tutils, NumberProxy) -> set:
    codes = set()
    # The proxy classes' own methods: repr/type_string/replace/known_value, the helpers
    # (their results are recorded as expressions) and the conversions (recorded).
    for cls in NumberProxy.__mro__ + tuple(NumberProxy.__subclasses__()):
        for v in vars(cls).values():
            codes |= _codes_of(getattr(v, "__func__", v))
    # Prim metas that compute a new number proxy's value from their inputs' values: the
    # output is itself recorded (as an expression of those inputs).
    for meta_factory in ("_elementwise_binary_meta_factory", "_elementwise_unary_meta_factory"):
        if hasattr(prims, meta_factory):
            codes |= _codes_of(getattr(prims, meta_factory))
    for meta in ("_convert_element_type_meta", "real_meta", "imag_meta"):
        if hasattr(prims, meta):
            codes |= _codes_of(getattr(prims, meta))
    return codes


register(
    Fix(
        name=FIX_NAME,
        package="lightning-thunder",
        upstream=UPSTREAM,
        summary=(
            'cache="symbolic values": record every decision taken on a symbolic value while '
            "tracing (comparisons' truth, __index__/__int__/__float__/__hash__, broadcasting, "
            "value reads) and replay them in the prologue, so a call hits only when each "
            "decision would go the same way; number inputs are type-checked"
        ),
        versions="==0.2.6",
        covers=lambda v: v == Version("0.2.6"),
        already_fixed=lambda v: False,
        install=_install,
    )
)
