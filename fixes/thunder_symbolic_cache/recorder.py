"""The per-trace recorder: expressions of every NumberProxy and the decision log.

While `thunder_general_jit` traces under symbolic values, a per-trace `_Recorder` keeps

1. an *expression* for every NumberProxy of the trace (see `expressions`): a `_Leaf` for
   values the prologue can read back; an `_Op(fn, args)` for results of Python operators
   on proxies, recorded in `NumberProxy._elementwise_{unary,binary}_helper`, which receive
   the exact Python operator `fn`; an `_Opaque(deps)` for numbers any other Thunder symbol
   made from numbers (recorded in `Symbol.__call__`); `_Unknown` for anything else;
2. a *decision log*: every time Python observes a proxy's value (`__bool__`, `__index__`,
   `__int__`, `__float__`, `__complex__`, `__hash__`, a plain-number result of a proxy
   operation, a `.value` read by code that does not merely propagate it into a new proxy,
   a derived proxy Thunder marked static), the expression and the value observed.

`build_check` turns the log into the prologue check (see `prologue`). Fallbacks, all
sound: a decision that depends on an `_Opaque` number pins the inputs it depends on
(their exact values); one that depends on an `_Unknown` number, or a trace whose
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
the stock ones (tested for every case of tests/fixes/test_thunder_symbolic_cache.py).
"""

from __future__ import annotations

import sys
import threading
from numbers import Number
from typing import Any

from fixes.thunder_symbolic_cache.expressions import (
    _Const,
    _evaluate,
    _has_opaque,
    _holds,
    _key,
    _Leaf,
    _leaves,
    _Op,
    _Opaque,
    _raw_value,
    _Select,
    _Unknown,
    always_holds,
    is_tensor_size,
)
from fixes.thunder_symbolic_cache.metas import relax_unconsumed
from fixes.thunder_symbolic_cache.or_checks import always_passes, chain_replay
from fixes.thunder_symbolic_cache.prologue import _AliasWindow, _compile_check, _generate

# The recorder of the trace being built on this thread (None when not tracing under
# symbolic values). Thread-local because Thunder may trace in several threads.
_local = threading.local()


def _current() -> _Recorder | None:
    rec = getattr(_local, "recorder", None)
    if rec is not None and rec.recording:
        return rec
    return None


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
        # The finished computation trace (set when interpretation ends): the meta replays
        # compare the sizes of the outputs it consumes only (`metas.relax_unconsumed`).
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
        all_leaves = {n.proxy.name: n for n in self.nodes.values() if isinstance(n, _Leaf)}
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
            if isinstance(node, (_Op, _Opaque)) and p.is_static_constrained():
                v = _raw_value(p)
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
            if isinstance(node, _Const) or always_holds(node, kind, observed):
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
                    if not is_tensor_size(leaf.proxy):
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


# The recording entry points called by the patched methods (see `patches`); registered as
# opaque lookasides, so the recording never runs under Thunder's interpreter.
def _record_observation(kind, proxy, observed):
    rec = _current()
    if rec is not None:
        if kind == "bool" and _CHAIN_SITES[0]:
            try:
                if _record_chain(rec):
                    return  # logged as the whole `or` chain of a shape check (`or_checks`)
            except Exception:
                pass  # logging the conversion itself is always sound
        rec.guarded(rec.decide, proxy, kind, observed)


# The `or` chains of Thunder's shape checks (`or_checks.chain_sites()`): filled by
# `patches.install()`, emptied by `uninstall()`.
_CHAIN_SITES: list = [{}, {}, None]  # at_chain, at_check, baseutils.check's code


def _record_chain(rec) -> bool:
    """If this `__bool__` is taken by one of the chains (or by `check` on its result),
    logs the whole chain as one decision and returns True; else False."""
    at_chain, at_check, check_code = _CHAIN_SITES
    # Frame 0 is this function, 1 `_record_observation`, 2 the `__bool__` wrapper
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
    observed = replay(*(_raw_value(v) if p else v for v, p in zip(values, is_proxy)))
    rec.decisions.append((_Op(replay, nodes), replay.kind, observed))
    return True


def _record_binary(result, fn, a, b):
    rec = _current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a, b))


def _record_unary(result, fn, a):
    rec = _current()
    if rec is not None:
        rec.guarded(rec.derive, result, fn, (a,))
