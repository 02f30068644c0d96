"""The patch table: what the fix replaces in Thunder, applied by `install()` and undone
exactly by `uninstall()`.

The fix is one `fixes._patching.PatchSet` (`PATCHES`, kind "fix", gated on the Thunder
versions it covers, `VERSIONS`). Each entry (`fixes._patching.Patch`) is an owner
object, an attribute name (or a key of Thunder's lookaside map), the original and the
replacement; `install()` builds the table from the objects it finds and applies it
(idempotent; the applied entries are `installed_patches()`); the part's `before` hook
fills `value.BENIGN_CODES` / `PASS_THROUGH_CODES` and the `or`-chain sites, and its
undo restores them. `uninstall()` puts every original back, removes the lookaside entries
it added, and restores those sets to what they held before. Nothing
in site-packages is modified, and the patches do nothing outside
`cache="symbolic values"` tracing. Do not uninstall while a trace is being built.

The recording code never runs under Thunder's interpreter: the wrappers that the
interpreter may step through (the conversions, the operator helpers) call the originals
and then `recorder._record_*` functions that are registered as opaque lookasides
(interpreting them would be slow and would see interpreter frames instead of the
reader's). Those wrappers reach the originals and the `_record_*` functions through
closure cells, not module globals: an interpreted LOAD_GLOBAL costs the interpreter
milliseconds. So each replacement is made by a factory below from the original, and the
factories of those wrappers bind the `_record_*` function into a closure cell too. The
other replacements always run as plain Python (symbols, lookasides and the interpreter's
own `JitCtx.proxify` are called, not interpreted; the tracing entry points run outside
the interpreter) and may use globals.

Four Thunder helpers are adjusted so that they do not create pins or decisions that the
replay makes unnecessary:
* the interpreter's `bool` lookaside no longer marks the proxy static while recording (the
  `__bool__` decision is replayed instead): `if s > 0` then admits any positive `s`,
  where stock Thunder pins `s` to its traced value;
* `utils.same_shape` compares lengths first: `tuple(a) == tuple(b)` compares elements
  before lengths, which records a spurious `b[0] == a[0]` when a 1-D shape is compared
  with a 2-D one during broadcasting;
* `clang.arange`'s `math.isfinite` checks decide a number proxy's finiteness, not its
  exact value (`float()`);
* `einsum`'s `opt_einsum.contract_path` decides the contraction order, not the operands'
  exact sizes (`int()`).

Thunder helpers adjusted
------------------------
Replacements that keep Thunder from taking decisions no trace depends on.

Four places where stock Thunder, while tracing under symbolic values, pins more than the
trace needs: `bool()` in interpreted code marks a number static (so every input it derives
from is pinned to its exact value), `utils.same_shape` compares tuples element by element
before their lengths (a decision on sizes for an answer no size can change), and
`clang.arange` checks its start, step and stop with `math.isfinite`, which converts a
number proxy with `float()` (a decision on its exact value, where only its finiteness
counts), and `einsum` lets opt_einsum choose the contraction order from the operands'
exact sizes (`int()` of each, where only the order it picks counts). The fix's recorder
logs and replays the real decision instead (fixes/
thunder_symbolic_cache/patches.py installs these).
"""

from __future__ import annotations

import functools
import math

from fixes._patching import Part, Patch, PatchSet
from fixes.thunder_symbolic_cache.expressions import Op, raw_value
from fixes.thunder_symbolic_cache.narrowings import (
    chain_sites,
    meta_adaptor_function,
    record_meta_call,
)
from fixes.thunder_symbolic_cache.prologue import FIX_NAME
from fixes.thunder_symbolic_cache.recorder import (
    BENIGN_CODES,
    CHAIN_SITES,
    PASS_THROUGH_CODES,
    RecordedValue,
    Recorder,
    benign_code_objects,
    codes_of,
    current,
    interpreted_value_get,
    local_state,
    record_binary,
    record_observation,
    record_unary,
)

VERSIONS = "==0.2.6"  # the lightning-thunder versions the fix covers


def _patch_table() -> list[Patch]:
    # Thunder is imported here, not at module top: fixes must import without Thunder.
    from fixes.compat_thunder_named_tensor import import_thunder

    thunder = import_thunder()
    import thunder.core.jit_ext as jit_ext
    import thunder.core.proxies as proxies
    import thunder.core.utils as tutils

    return _table(thunder, jit_ext, proxies, tutils)


def _fill_codes():
    """Fills the code-object sets and the chain sites (from the original methods: called
    before anything is patched); returns the undo that puts back what they held."""
    import thunder.core.prims as prims
    import thunder.core.proxies as proxies
    import thunder.core.utils as tutils

    before = (set(BENIGN_CODES), set(PASS_THROUGH_CODES), list(CHAIN_SITES))
    CHAIN_SITES[:] = chain_sites()
    BENIGN_CODES.update(benign_code_objects(prims, proxies.NumberProxy))
    PASS_THROUGH_CODES.update(codes_of(proxies.pyval) | codes_of(tutils.get_numberlike_value))

    def undo() -> None:
        benign, pass_through, chains = before
        CHAIN_SITES[:] = chains
        BENIGN_CODES.clear()
        BENIGN_CODES.update(benign)
        PASS_THROUGH_CODES.clear()
        PASS_THROUGH_CODES.update(pass_through)
        local_state.pending = None

    return undo


PATCHES = PatchSet(
    FIX_NAME,
    "fix",
    [
        Part(
            "cache",
            _patch_table,
            versions={"lightning-thunder": VERSIONS},
            before=_fill_codes,
        )
    ],
)
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # every original back (a no-op when not installed)
installed_patches = PATCHES.patches  # the applied entries (empty when not installed)


def _meta_func_code(thunder_torch):
    """The code object of `meta_adaptor`'s inner `meta_func` (None if not found)."""
    for c in thunder_torch.meta_adaptor.__code__.co_consts:
        if getattr(c, "co_name", None) == "meta_func":
            return c
    return None


def _table(thunder, jit_ext, proxies, tutils) -> list[Patch]:
    import thunder.clang as clang
    import thunder.torch as thunder_torch
    from thunder.core.compile_data import get_cache_option
    from thunder.core.options import CACHE_OPTIONS
    from thunder.core.symbol import Symbol

    NumberProxy, IntegerProxy, TensorProxy = (
        proxies.NumberProxy,
        proxies.IntegerProxy,
        proxies.TensorProxy,
    )
    lookasides = jit_ext._general_jit_lookaside_map

    def symbolic() -> bool:
        return get_cache_option() is CACHE_OPTIONS.SYMBOLIC_VALUES

    general_jit = _recording_general_jit(
        jit_ext.thunder_general_jit, symbolic, NumberProxy, TensorProxy
    )
    return [
        # 0. The recording entry points, always run as plain Python (opaque lookasides).
        *(
            Patch.set(lookasides, record, jit_ext.interpreter_needs_wrap(record), item=True)
            for record in (record_observation, record_unary, record_binary)
        ),
        # 1. Conversions: the value Python observes.
        *(
            Patch.wrap(cls, attr, functools.partial(_observing, kind, record_observation))
            for cls, attr, kind in (
                (NumberProxy, "__bool__", "bool"),
                (NumberProxy, "__int__", "int"),
                (NumberProxy, "__float__", "float"),
                (NumberProxy, "__complex__", "complex"),
                (NumberProxy, "__hash__", "hash"),
                (IntegerProxy, "__index__", "index"),
            )
        ),
        # 2. Python operators on proxies: the exact Python function is passed in as `fn`.
        Patch.wrap(NumberProxy, "_elementwise_binary_helper", _binary_helper),
        Patch.wrap(NumberProxy, "_elementwise_unary_helper", _unary_helper),
        # 3. Numbers made by any other symbol (direct prim calls inside Thunder): remember
        #    their inputs so a decision on them can at least pin those inputs. (Symbols are
        #    always called as plain Python: the interpreter looks them aside.)
        Patch.wrap(
            Symbol, "__call__", functools.partial(_symbol_call, _meta_func_code(thunder_torch))
        ),
        # 4. Every input the interpreter proxifies (number inputs, tensor sizes), so that the
        #    fallback "pin every symbolic input" really covers all of them.
        Patch.wrap(jit_ext.JitCtx, "proxify", _proxify_and_register),
        # 5. Direct `.value` reads outside value propagation (see `value`): the descriptor,
        #    and the lookaside for its `__get__` when the interpreter runs the reader.
        Patch.set(NumberProxy, "value", RecordedValue()),
        Patch.set(
            lookasides,
            RecordedValue.__get__,
            jit_ext.interpreter_needs_wrap(interpreted_value_get),
            item=True,
        ),
        # 6. `bool()` in interpreted code (see the module docstring).
        Patch.wrap(
            lookasides,
            bool,
            functools.partial(bool_lookaside_without_static_pin, NumberProxy),
            item=True,
        ),
        # 7. `utils.same_shape`: lengths first; `clang`'s `math.isfinite` of a number
        #    proxy decided as finiteness (see the module docstring).
        Patch.wrap(tutils, "same_shape", same_shape_lengths_first),
        Patch.set(clang, "math", MathWithFiniteness(clang.math, NumberProxy, proxies.IntegerProxy)),
        # 7b. einsum's contraction order decided as such, not by the exact sizes.
        Patch.set(
            thunder_torch,
            "opt_einsum",
            OptEinsumPathDecided(thunder_torch.opt_einsum, NumberProxy, TensorProxy),
        ),
        # 8. The recording window, and the prologue check.
        Patch.set(jit_ext, "thunder_general_jit", general_jit),
        # acquire_initial_trace looks it up here:
        Patch.set(thunder, "thunder_general_jit", general_jit),
        Patch.wrap(jit_ext, "propagate_constraints", _propagate_without_recording),
        Patch.wrap(
            jit_ext,
            "unpack_inputs",
            functools.partial(_unpack_inputs_with_decisions, thunder),
        ),
        # 9. Thunder's input-alias handling (the cache entry's builder looks it up here).
        Patch.wrap(
            thunder, "insert_alias_updates", functools.partial(_alias_updates_recorded, symbolic)
        ),
    ]


# ------------------------------------------------------------------------------------
# The replacements. Each factory gets the original and returns its replacement.
# ------------------------------------------------------------------------------------


def _observing(kind, record, original):
    @functools.wraps(original)
    def method(self, *args):
        result = original(self, *args)
        record(kind, self, result)
        return result

    return method


def _binary_helper(original):
    bin_helper = original.__func__  # a staticmethod in the class dict
    record = record_binary  # a closure cell (see the module docstring)

    @functools.wraps(bin_helper)
    def binary_helper(a, b, name, fn, type_promotion_kind=None):
        result = bin_helper(a, b, name, fn, type_promotion_kind)
        record(result, fn, a, b)
        return result

    return staticmethod(binary_helper)


def _unary_helper(original):
    un_helper = original.__func__
    record = record_unary  # a closure cell

    @functools.wraps(un_helper)
    def unary_helper(a, name, fn, type_promotion_kind=None):
        result = un_helper(a, name, fn, type_promotion_kind)
        record(result, fn, a)
        return result

    return staticmethod(unary_helper)


def _symbol_call(meta_func_code, sym_call):
    """`Symbol.__call__`: numbers made by the symbol are remembered with what they depend
    on; a call of a `meta_adaptor` meta gets its reads of the arguments replaced by one
    replay of the meta (see `narrowings`)."""

    @functools.wraps(sym_call)
    def symbol_call(self, *args, **kwargs):
        rec = current()
        if rec is None:
            return sym_call(self, *args, **kwargs)
        torch_func = meta_adaptor_function(self, meta_func_code)
        start = len(rec.decisions)
        result = sym_call(self, *args, **kwargs)
        if torch_func is not None and current() is rec:
            rec.guarded(record_meta_call, rec, start, torch_func, args, kwargs, result)
        rec = current()
        if rec is not None:
            rec.guarded(rec.derive_from_symbol, self, args, kwargs, result)
        return result

    return symbol_call


def _proxify_and_register(proxify):
    @functools.wraps(proxify)
    def proxify_and_register(self, value):
        p = proxify(self, value)
        rec = current()
        if rec is not None:
            rec.guarded(rec.add_input, p)
        return p

    return proxify_and_register


def _recording_general_jit(general_jit, symbolic, NumberProxy, TensorProxy):
    """The recording window: one `Recorder` per trace under symbolic values."""

    @functools.wraps(general_jit)
    def thunder_general_jit(fn, args, kwargs, /, **options):
        if not symbolic():
            return general_jit(fn, args, kwargs, **options)
        previous = getattr(local_state, "recorder", None)
        rec = local_state.recorder = Recorder(NumberProxy, TensorProxy)
        try:
            result = general_jit(fn, args, kwargs, **options)
        finally:
            local_state.recorder = previous
        # Thunder builds the cache entry from this trace next, in this thread; its
        # alias handling then reports to this recorder (see _alias_updates_recorded).
        local_state.pending = rec if rec.alias_window is not None else None
        return result

    return thunder_general_jit


def _propagate_without_recording(propagate):
    @functools.wraps(propagate)
    def propagate_constraints(ctx, inputs, intermediates, computation_trace):
        # Interpretation is over: what follows builds the prologue and reads values
        # for its own checks, which are not decisions of the traced program.
        rec = getattr(local_state, "recorder", None)
        if rec is not None:
            rec.recording = False
            # The finished computation: which meta outputs anything consumes (`narrowings`).
            rec.computation_trace = computation_trace
        return propagate(ctx, inputs, intermediates, computation_trace)

    return propagate_constraints


def _unpack_inputs_with_decisions(thunder, unpack_inputs):
    @functools.wraps(unpack_inputs)
    def unpack_inputs_with_decisions(
        ctx, prologue_trace, pro_to_comp_inps, pro_to_epi_inps, args, kwargs
    ):
        rec = getattr(local_state, "recorder", None)
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
        return unpack_inputs(ctx, prologue_trace, pro_to_comp_inps, pro_to_epi_inps, args, kwargs)

    return unpack_inputs_with_decisions


def _alias_updates_recorded(symbolic, alias_updates):
    """Thunder's input-alias handling. When inputs of the call share storage,
    `insert_alias_updates` (run on the finished trace, before the cache entry is made)
    replaces an input by another one, reshaped when their shapes differ:
    `arg_to_replace.shape != arg.shape` is a decision on symbolic sizes, taken after the
    prologue check was emitted. It is recorded like the others and compiled into the
    check's alias part (`AliasWindow`), so an entry traced with `x2` *being* `x1` does not
    serve `x1` and a smaller view `x2` of it."""

    @functools.wraps(alias_updates)
    def insert_alias_updates_recorded(computation_trace, alias_tensor_indices):
        rec = getattr(local_state, "pending", None)
        local_state.pending = None
        if rec is None or rec.alias_window is None or not symbolic():
            return alias_updates(computation_trace, alias_tensor_indices)
        start, keep_start = len(rec.decisions), len(rec.keep)
        previous = getattr(local_state, "recorder", None)
        local_state.recorder, rec.recording = rec, True
        try:
            return alias_updates(computation_trace, alias_tensor_indices)
        finally:
            rec.recording = False
            local_state.recorder = previous
            rec.finish_alias_window(start, keep_start)

    return insert_alias_updates_recorded


def bool_lookaside_without_static_pin(NumberProxy, bool_lookaside):
    """`bool()` in interpreted code: Thunder's lookaside marks the proxy static, and
    propagate_constraints then pins every number input it derives from to its exact value
    (or nothing at all when the chain goes through prims.shape). The decision itself is
    recorded by `NumberProxy.__bool__` and replayed, so while recording we keep the proxy's
    constraint as it was: `if s > 0` then admits any positive `s`."""

    @functools.wraps(bool_lookaside)
    def bool_lookaside_without_static_pin(wrapped_x):
        x = getattr(wrapped_x, "value", None)
        if current() is None or not isinstance(x, NumberProxy) or x.is_dynamic():
            return bool_lookaside(wrapped_x)  # (also raises for dynamic proxies, as before)
        constraint = x.constraint
        try:
            return bool_lookaside(wrapped_x)
        finally:
            x.constraint = constraint

    return bool_lookaside_without_static_pin


def same_shape_lengths_first(same_shape):
    """`utils.same_shape(a, b)` is `tuple(a) == tuple(b)`. CPython compares tuples element
    by element before it looks at their lengths, so broadcasting (1-D `b` against 2-D `a`)
    records `b[0] == a[0]` although the answer is False for any value: (5, 5) + (5,) would
    miss a trace made for (2, 3) + (3,). Checking the lengths first gives the same answer
    without that spurious decision."""

    @functools.wraps(same_shape)
    def same_shape_lengths_first(a, b, /):
        if len(a) != len(b):
            return False
        return same_shape(a, b)

    return same_shape_lengths_first


class MathWithFiniteness:
    """`thunder.clang`'s `math` module, but for `isfinite` of a number proxy: every int is
    finite, so an integer proxy is answered without a decision; for a float proxy the
    decision recorded is `isfinite(x)` itself (replayed in the prologue), not the exact
    value that `float(x)` would pin. A size that `arange` reaches (`torch.arange(n)`,
    `diagonal`'s index ranges: 115 of the float decisions of a 150-program night) then
    admits any value, as the trace does."""

    def __init__(self, module, NumberProxy, IntegerProxy):
        self._module, self._number, self._integer = module, NumberProxy, IntegerProxy

    def __getattr__(self, name):
        return getattr(self._module, name)

    def isfinite(self, x, /):
        if isinstance(x, self._integer):
            return True
        if isinstance(x, self._number):
            result = math.isfinite(raw_value(x))
            rec = current()
            if rec is not None:
                rec.guarded(rec.derive, result, math.isfinite, (x,))
            return result
        return self._module.isfinite(x)


class _EinsumPath:
    """`opt_einsum.contract_path(eq, *shapes)`'s contraction list, as a function of the
    symbolic sizes of the operands: what the einsum decomposition's structure depends on."""

    __slots__ = ("contract_path", "equation", "template", "kwargs", "__name__")

    def __init__(self, contract_path, equation, template, kwargs):
        self.contract_path, self.equation = contract_path, equation
        self.template, self.kwargs = template, kwargs
        self.__name__ = f"einsum_path[{equation}]"

    def __call__(self, *values):
        shapes = [
            tuple(values[d[1]] if d[0] == "n" else d[1] for d in dims) for dims in self.template
        ]
        _, info = self.contract_path(self.equation, *shapes, shapes=True, **self.kwargs)
        return path_signature(info)


def path_signature(info) -> tuple:
    """A contraction list as a comparable value (operands, labels summed over, the
    pairwise equation, whether BLAS is used): what Thunder's einsum reads of it."""
    return tuple(
        (tuple(c[0]), tuple(sorted(c[1])), c[2], c[4] if len(c) > 4 else None)
        for c in info.contraction_list
    )


class OptEinsumPathDecided:
    """`thunder.torch`'s `opt_einsum` module, but for `contract_path` on tensor proxies:
    opt_einsum chooses the contraction order from the operands' sizes, reading each with
    `int()` (a decision on its exact value: 56 of a 150-program night's int decisions).
    The decision recorded is the contraction list itself, replayed in the prologue on the
    new sizes: an einsum called on other sizes that gives the same order keeps the trace.
    The sizes are read as opt_einsum reads them (`.shape`, so the trace is as stock's)."""

    def __init__(self, module, NumberProxy, TensorProxy):
        self._module, self._number, self._tensor = module, NumberProxy, TensorProxy

    def __getattr__(self, name):
        return getattr(self._module, name)

    def contract_path(self, equation, *operands, **kwargs):
        rec = current()
        if rec is None or not operands or not all(isinstance(o, self._tensor) for o in operands):
            return self._module.contract_path(equation, *operands, **kwargs)
        nodes, index, template = [], {}, []
        for operand in operands:
            dims = []
            for s in operand.shape:
                if isinstance(s, self._number):
                    if id(s) not in index:
                        index[id(s)] = len(nodes)
                        nodes.append(s)
                    dims.append(("n", index[id(s)]))
                else:
                    dims.append(("c", int(s)))
            template.append(tuple(dims))
        shapes = [
            tuple(raw_value(nodes[d[1]]) if d[0] == "n" else d[1] for d in dims)
            for dims in template
        ]
        options = {k: v for k, v in kwargs.items() if k != "einsum_call"}
        result = self._module.contract_path(equation, *shapes, shapes=True, **options)
        replay = _EinsumPath(self._module.contract_path, equation, tuple(template), options)
        rec.guarded(record_replay, rec, replay, nodes, path_signature(result[1]))
        return result


def record_replay(rec, replay, proxies, observed) -> None:
    """Log `replay(*values of proxies) == observed` as one decision."""
    rec.decisions.append((Op(replay, tuple(rec.node(p) for p in proxies)), "value", observed))
