"""The per-trace recorder: expressions of every NumberProxy and the decision log.

While `thunder_general_jit` traces under symbolic values, a per-trace `Recorder` keeps

1. an *expression* for every NumberProxy of the trace (see `expressions`): a `Leaf` for
   values the prologue can read back; an `Op(fn, args)` for results of Python operators
   on proxies, recorded in `NumberProxy._elementwise_{unary,binary}_helper`, which receive
   the exact Python operator `fn`; an `Opaque(deps)` for numbers any other Thunder symbol
   made from numbers (recorded in `Symbol.__call__`); `Unknown` for anything else;
2. a *decision log*: every time Python observes a proxy's value (`__bool__`, `__index__`,
   `__int__`, `__float__`, `__complex__`, `__hash__`, a plain-number result of a proxy
   operation, a `.value` read by code that does not merely propagate it into a new proxy,
   a derived proxy Thunder marked static), the expression and the value observed.

`build_check` turns the log into the prologue check (see `prologue`). Fallbacks, all
sound: a decision that depends on an `Opaque` number pins the inputs it depends on
(their exact values); one that depends on an `Unknown` number, or a trace whose
recording failed, pins every symbolic input (every number and tensor size
`JitCtx.proxify` made for this trace). Each replay is first run on the traced values and
must reproduce the traced observation, else that decision is pinned instead.

When inputs of the call share storage, the decisions logged while Thunder's
`insert_alias_updates` runs (after tracing) are compiled by `finish_alias_window` into the
check's alias part; any failure there pins every symbolic input.

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
the stock ones (tested for every case of tests/stacks/fixes/test_thunder_symbolic_cache.py).

Direct value reads
------------------
Reads of `NumberProxy.value`: the `.value` descriptor that logs them as decisions.

Some Thunder code reads `proxy.value` directly (`utils.check_no_duplicates`, `pyval`, ...)
and branches on it. While a trace is being recorded, `RecordedValue` (installed as
`NumberProxy.value`) logs such a read as a "value" decision, unless the reader only
propagates the value into a new proxy or prints it: the code objects in `BENIGN_CODES`
(the proxy classes' own methods, and the prim metas that compute a new number proxy's
value, whose output is itself recorded as an expression). Helpers in
`PASS_THROUGH_CODES` (`proxies.pyval`, `utils.get_numberlike_value`) just hand the value
to their caller, which is judged instead.

Plain Python reads go through the descriptor's `__get__`; reads in code that Thunder's
interpreter runs reach `__get__` through the interpreter, which is looked aside to
`interpreted_value_get`, so the reader is the interpreted frame (not the interpreter's
own). Both sets are filled by `patches.install()` from the original, unpatched code
objects and emptied again by `patches.uninstall()`. Reads of
`proxy.__dict__["value"]` are not seen.
"""

from __future__ import annotations

import sys
import threading
from numbers import Number
from typing import Any

from fixes.thunder_symbolic_cache.expressions import (
    Const,
    Leaf,
    Op,
    Opaque,
    Select,
    Unknown,
    always_holds,
    evaluate,
    has_opaque,
    holds,
    is_tensor_size,
    leaves_of,
    node_key,
    raw_value,
)
from fixes.thunder_symbolic_cache.narrowings import always_passes, chain_replay, relax_unconsumed
from fixes.thunder_symbolic_cache.prologue import AliasWindow, compile_check, generate

# The recorder of the trace being built on this thread (None when not tracing under
# symbolic values). Thread-local because Thunder may trace in several threads.
local_state = threading.local()


def current() -> Recorder | None:
    rec = getattr(local_state, "recorder", None)
    if rec is not None and rec.recording:
        return rec
    return None


class Recorder:
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
        # (`AliasWindow`); None when this call has no inputs that share storage.
        self.alias_window: AliasWindow | None = None
        # The finished computation trace (set when interpretation ends): the meta replays
        # compare the sizes of the outputs it consumes only (`narrowings.relax_unconsumed`).
        self.computation_trace = None

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
                n = Leaf(x) if x.history is not None else Unknown(x)
                self.nodes[id(x)] = n
                self.keep.append(x)
            return n
        if isinstance(x, Number) or x is None:
            return Const(x)
        if isinstance(x, (tuple, list)) and not any(isinstance(i, self.NumberProxy) for i in x):
            return Const(x)
        return None  # a tensor or something else we cannot replay

    def derive(self, result, fn, args):
        """`result = fn(*args)`, a Python operator applied to proxies."""
        arg_nodes = [self.node(a) for a in args]
        if any(n is None for n in arg_nodes):
            return
        outs = [(result, fn)]
        if isinstance(result, tuple):  # divmod
            outs = [(r, Select(fn, i)) for i, r in enumerate(result)]
        for r, f in outs:
            if isinstance(r, self.NumberProxy):
                # Overrides what derive_from_symbol recorded for the inner prim call: the
                # Python operator is the exact semantics to replay.
                self.nodes[id(r)] = Op(f, tuple(arg_nodes))
                self.keep.append(r)
            elif isinstance(r, Number) and any(isinstance(a, self.NumberProxy) for a in args):
                # Evaluated eagerly (no trace context): the value escaped into plain Python.
                self.decisions.append((Op(f, tuple(arg_nodes)), "value", r))

    def derive_from_symbol(self, sym, args, kwargs, result):
        """Numbers produced by any Thunder symbol: remember what they depend on."""
        # Thunder imports stay inside functions: the package must import without Thunder.
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
            self.nodes[id(r)] = Opaque(sym.name, tuple(deps)) if deps is not None else Unknown(r)
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
        checks = [(leaf, "value", raw_value(leaf.proxy)) for leaf in all_leaves.values()]
        return compile_check(checks, typed, {})[0] if checks or typed else None

    def add_input(self, p):
        """An input proxified by the interpreter: its number leaves (for pinning them all)."""
        if isinstance(p, self.TensorProxy):
            # `p._shape`, not `p.shape`: under symbolic values, while a trace is being
            # built, `TensorProxy.shape` binds `prims.shape(p)` into that trace. Reading it
            # here (at proxify time) made every input tensor, even an unused one, an input
            # of the computation, which changes what Thunder's alias handling does with it
            # (see "Recording leaves the trace as it is" in this module's docstring).
            for s in p._shape:
                self.add_input(s)
        elif isinstance(p, self.NumberProxy) and p.history is not None:
            self.node(p)

    def _inputs(self, pro_to_comp):
        """Every symbolic input value of the trace (by name), and the number inputs."""
        from thunder.core.proxies import unvariableify

        for v in pro_to_comp:
            self.add_input(unvariableify(v))
        all_leaves = {n.proxy.name: n for n in self.nodes.values() if isinstance(n, Leaf)}
        # Number inputs: their Python type is checked (sizes of input tensors are ints).
        typed = {name: n.proxy for name, n in all_leaves.items() if not is_tensor_size(n.proxy)}
        return all_leaves, typed

    def _static_derived(self, proxies) -> list:
        # Numbers Thunder itself marked static (bool lookaside, torch.device index, ...):
        # propagate_constraints pins them only when they reach a number input directly, not
        # through prims.shape, so pin the derived ones here too.
        out = []
        for p in proxies:
            node = self.nodes.get(id(p))
            if isinstance(node, (Op, Opaque)) and p.is_static_constrained():
                v = raw_value(p)
                out.append((node, "bool" if type(v) is bool else "value", v))
        return out

    def _build_check(self, pro_to_comp, inputs_alias):
        from thunder.core.proxies import unvariableify

        decisions = relax_unconsumed(
            list(self.decisions) + self._static_derived(self.keep), self.computation_trace
        )
        all_leaves, _ = self._inputs(pro_to_comp)
        # Number inputs the computation uses: their Python type is checked (it decides type
        # promotion in the trace). A number the computation does not take reached the trace
        # only through what Python observed of it (`float(n)`, `n > 2`, `int(n)`, a value
        # read), and each observation is replayed as what was observed, with its type where
        # the observation kept one ("value"): `math.log1p(n)` with n = 3 then 3.0 is the same
        # trace, and a type check there only missed it (2026-12-06: 4 of a night's 9).
        typed = {
            p.name: p
            for p in (unvariableify(v) for v in pro_to_comp)
            if isinstance(p, self.NumberProxy) and p.history is not None and not is_tensor_size(p)
        }
        memo: dict = {}
        checks = self._checks(decisions, all_leaves, memo)

        if not checks and not typed and not inputs_alias:
            return None
        constraint, self.alias_window = compile_check(
            checks, typed, memo, all_leaves if inputs_alias else None
        )
        return constraint

    def _checks(self, decisions, all_leaves, memo) -> list:
        """The checks for a list of decisions: replays, pins of the inputs of decisions that
        cannot be replayed, or of every input in `all_leaves` if one depends on a number of
        unknown origin."""
        checks: dict[tuple, tuple[Any, str, Any]] = {}
        pins: dict[str, Leaf] = {}
        pin_all = False
        for node, kind, observed in decisions:
            if isinstance(node, Const) or always_holds(node, kind, observed):
                continue  # nothing symbolic was decided
            key = (node_key(node, memo), kind, type(observed).__name__, repr(observed))
            if key in checks:
                continue
            leaves: dict[str, Leaf] = {}
            if not leaves_of(node, leaves, set()):
                pin_all = True  # depends on a number of unknown origin
            elif not leaves:
                continue  # depends on no input
            elif has_opaque(node) or not self._replays(node, kind, observed, leaves):
                pins.update(leaves)  # cannot replay: pin the inputs it depends on
            else:
                checks[key] = (node, kind, observed)
        if pin_all:
            pins.update(all_leaves)
            for node, _, _ in decisions:
                leaves_of(node, pins, set())

        checks = list(checks.values())
        for leaf in pins.values():
            checks.append((leaf, "value", raw_value(leaf.proxy)))
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
                found: dict[str, Leaf] = {}
                leaves_of(node, found, set())
                for name, leaf in found.items():
                    if name not in w.index:
                        raise LookupError(f"{name} is not an input of the check")
                    if not is_tensor_size(leaf.proxy):
                        typed[name] = leaf.proxy
            fn, templates = generate(checks, typed, memo, w.order, "check_alias_decisions")
        except Exception:
            # Sound fallback: every symbolic input keeps its traced value.
            checks = [(leaf, "value", raw_value(leaf.proxy)) for leaf in w.leaves.values()]
            fn, templates = generate(checks, {}, {}, w.order, "check_alias_decisions")
        w.templates.extend(f"{t}  (alias handling)" for t in templates)
        w.fn = fn

    def _replays(self, node, kind, observed, leaves) -> bool:
        # The replay must reproduce the traced observation from the traced values; if it
        # does not (operator semantics we do not mirror, an exception), the caller pins.
        env = {name: raw_value(leaf.proxy) for name, leaf in leaves.items()}
        try:
            return holds(kind, evaluate(node, env), observed)
        except Exception:
            return False


# The recording entry points called by the patched methods (see `patches`); registered as
# opaque lookasides, so the recording never runs under Thunder's interpreter.
def record_observation(kind, proxy, observed):
    rec = current()
    if rec is not None:
        if kind == "bool" and CHAIN_SITES[0]:
            try:
                if _record_chain(rec):
                    return  # logged as the whole `or` chain of a shape check (`narrowings`)
            except Exception:
                pass  # logging the conversion itself is always sound
        rec.guarded(rec.decide, proxy, kind, observed)


# The `or` chains of Thunder's shape checks (`narrowings.chain_sites()`): filled by
# `patches.install()`, emptied by `uninstall()`.
CHAIN_SITES: list = [{}, {}, None]  # at_chain, at_check, baseutils.check's code


def _record_chain(rec) -> bool:
    """If this `__bool__` is taken by one of the chains (or by `check` on its result),
    logs the whole chain as one decision and returns True; else False."""
    at_chain, at_check, check_code = CHAIN_SITES
    # Frame 0 is this function, 1 `record_observation`, 2 the `__bool__` wrapper
    # (`patches._observing`), 3 the code that converted the proxy.
    f = sys._getframe(3)
    chain = at_chain.get((f.f_code, f.f_lineno))
    if chain is None and f.f_code is check_code and f.f_back is not None:
        f = f.f_back
        chain = at_check.get((f.f_code, f.f_lineno))
    if chain is None:
        return False
    values = chain.operands(f.f_locals)
    nodes = tuple(rec.node(v) for v in values)
    if any(n is None for n in nodes):
        return False  # an operand we cannot replay: log the conversion itself
    is_proxy = tuple(isinstance(v, rec.NumberProxy) for v in values)
    if always_passes(chain, nodes, values, is_proxy):
        return True  # nothing to replay: the chain passes the same way for any values
    replay = chain_replay(chain, is_proxy)
    observed = replay(*(raw_value(v) if p else v for v, p in zip(values, is_proxy)))
    rec.decisions.append((Op(replay, nodes), replay.kind, observed))
    return True


def record_binary(result, fn, a, b):
    rec = current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a, b))


def record_unary(result, fn, a):
    rec = current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a,))


# Code that reads a proxy's value only to propagate it into a new proxy (or to print it)
# is not a decision. `_PASS_THROUGH` functions just hand the value to their caller, which
# is judged instead.
BENIGN_CODES: set = set()
PASS_THROUGH_CODES: set = set()


def codes_of(obj) -> set:
    out = set()
    code = getattr(obj, "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        out.add(c)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return out


def benign_code_objects(prims, NumberProxy) -> set:
    """The code objects whose reads of `.value` are not decisions (see the docstring).
    Collected before anything is patched: the original methods' code."""
    codes = set()
    # The proxy classes' own methods: repr/type_string/replace/known_value, the helpers
    # (their results are recorded as expressions) and the conversions (recorded).
    for cls in NumberProxy.__mro__ + tuple(NumberProxy.__subclasses__()):
        for v in vars(cls).values():
            codes |= codes_of(getattr(v, "__func__", v))
    # Prim metas that compute a new number proxy's value from their inputs' values: the
    # output is itself recorded (as an expression of those inputs).
    for meta_factory in ("_elementwise_binary_meta_factory", "_elementwise_unary_meta_factory"):
        if hasattr(prims, meta_factory):
            codes |= codes_of(getattr(prims, meta_factory))
    for meta in ("_convert_element_type_meta", "real_meta", "imag_meta"):
        if hasattr(prims, meta):
            codes |= codes_of(getattr(prims, meta))
    return codes


class RecordedValue:
    """Data descriptor replacing the `value` attribute of NumberProxy instances."""

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if current() is None:  # not recording: a plain attribute read
            try:
                return obj.__dict__["value"]
            except KeyError:
                raise AttributeError("value") from None
        # The reader: the first caller that is not a pass-through helper.
        frame = sys._getframe(1)
        while frame is not None and frame.f_code in PASS_THROUGH_CODES:
            frame = frame.f_back
        return _read_value(obj, frame.f_code if frame is not None else None)

    def __set__(self, obj, v):
        obj.__dict__["value"] = v


def interpreted_value_get(descriptor, obj, objtype=None):
    """`RecordedValue.__get__` when Thunder's interpreter runs the reading code: the
    reader is the innermost interpreted frame that is not a pass-through helper."""
    if obj is None:
        return descriptor
    # Thunder is imported here, not at module top: the package must import without Thunder.
    from thunder.core.interpreter import get_interpreterruntimectx

    code = None
    for frame in reversed(get_interpreterruntimectx().frame_stack):
        if frame.code not in PASS_THROUGH_CODES:
            code = frame.code
            break
    return _read_value(obj, code)


def _read_value(obj, reader_code):
    try:
        v = obj.__dict__["value"]
    except KeyError:
        raise AttributeError("value") from None
    rec = current()
    if rec is not None and v is not None and reader_code not in BENIGN_CODES:
        rec.guarded(rec.decide, obj, "value", v)
    return v
