"""Pure-overhead costs of Thunder's tracing, removed without changing what it traces.

On the small programs the harness generates, about a quarter of `thunder.jit`'s time
went to three things that do not depend on the program (figures: benchmarks/journal/2026-11-30.md,
`benchmarks/bench_fixed_costs.py`):

* Global names. `thunder.core.interpreter.globals_lookup` reads `globals[name]` (or
  `globals["__builtins__"][name]`) by *interpreting* `lambda d, k: d[k]`: two interpreted
  frames (the lambda, then BINARY_SUBSCR's `getitem_impl`), each disassembled and run
  opcode by opcode, only to reach the provenance-tracking lookaside of `dict.__getitem__`,
  `MutMappingWrapperMethods.__getitem__(wrapped_dict, wrapped_key)`. Most lookups are of
  builtins (`type`, `hasattr`, `getattr`, ...) made by Thunder's own helpers that it
  interprets (`outofplace_impl`, `tree_flatten`): several per tensor operation.
  `globals_lookup_calling_the_lookaside` calls that lookaside directly when the
  interpreter tracks provenance and the dicts are plain dicts holding the name: the same
  function on the same wrapped dict with the same key, so it returns the same
  `WrappedValue` (the dict wrapper's item wrapper) with the same provenance. Every other
  case (a missing name, a module as `__builtins__`, no provenance tracking, a dict
  subclass) takes upstream's path. What it skips is the bookkeeping of the two frames it
  no longer runs: the interpreted-instruction log (`thunder.last_interpreted_instructions`,
  a debugging aid) and wrappers of the lambda and of the bound `__getitem__`.
* Disassembly. `_run_frame` disassembles its code object on every interpreted call
  (`tuple(dis.get_instructions(frame.code))`). A code object is immutable and so is
  its disassembly (tuples of named tuples), so the interpreter module's `dis` is
  replaced by `dis` with `get_instructions` remembering each code object's instructions
  (weakly: code objects of generated programs die with them).
* Signatures. `Symbol.normalize` computes `inspect.signature(self.meta)` on every bound
  symbol; `normalize_with_remembered_signature` computes it once per meta function
  (weakly held; a meta that cannot be weakly held is computed as before). Thunder never
  changes a meta function's signature after it defines the symbol.

The speedups are one `fixes._patching.PatchSet` (`PATCHES`, the mechanism of the fixes
and the compat shim too). The global-lookup and signature speedups replace upstream
functions, so each is installed only over the upstream source it reproduces
(`UPSTREAM_SOURCES`, sha256 of the sources, lightning-thunder 0.2.6 on both lanes);
another Thunder keeps upstream's (`skipped` says why). The disassembly one replaces the
interpreter's reference to the `dis` module, no function, and only remembers what `dis`
returns: it is the one ungated part.

`install()` is idempotent and undone exactly by `uninstall()`;
tests/stacks/thunder/test_thunder_speedups.py checks that cache hits, misses, prologues,
computation traces and execution traces are identical with and without them on generated
programs, and that a global lookup returns the very wrapper upstream's path returns.
"""

from __future__ import annotations

import dis
import functools
import inspect
import types
import weakref
from collections.abc import Callable

from fixes._patching import Part, Patch, PatchSet, source_digest, unpatched
from fixes.compat_thunder_named_tensor import import_thunder

import_thunder()  # the named-tensor shim first: Thunder 0.2.6 does not import without it

import thunder.core.interpreter as interpreter  # noqa: E402
import thunder.core.symbol as symbol  # noqa: E402

# The upstream functions a speedup reproduces -> source_digest of their sources.
UPSTREAM_SOURCES = {
    "globals_lookup": "b5199a65779efd71",  # globals_lookup + MutMappingWrapperMethods.__getitem__
    "normalize": "09a35871600642ef",  # Symbol.normalize
}


def _upstream_globals_lookup() -> tuple[Callable, ...]:
    lookup = unpatched(interpreter, "globals_lookup")
    return lookup, interpreter.MutMappingWrapperMethods.__getitem__


def _upstream_normalize() -> tuple[Callable, ...]:
    return (unpatched(symbol.Symbol, "normalize"),)


def upstream_hashes() -> dict[str, str]:
    """The hashes of the installed Thunder's sources, keyed as `UPSTREAM_SOURCES`."""
    return {
        "globals_lookup": source_digest(*_upstream_globals_lookup()),
        "normalize": source_digest(*_upstream_normalize()),
    }


def globals_lookup_calling_the_lookaside(original: Callable) -> Callable:
    getitem = interpreter.MutMappingWrapperMethods.__getitem__
    wrapped_type = interpreter.WrappedValue

    @functools.wraps(original)
    def globals_lookup(globals_dict, name):
        if (
            isinstance(globals_dict, wrapped_type)
            and isinstance(name, wrapped_type)
            and type(globals_dict.value) is dict
            and type(name.value) is str
            and interpreter.get_interpretercompilectx()._with_provenance_tracking
        ):
            namespace = globals_dict.value
            if name.value in namespace:
                return getitem(globals_dict, name)
            builtins = namespace.get("__builtins__")
            if type(builtins) is dict and name.value in builtins:
                wrapped_builtins = getitem(globals_dict, interpreter.wrap_const("__builtins__"))
                return getitem(wrapped_builtins, name)
        return original(globals_dict, name)

    globals_lookup.__wrapped__ = original
    return globals_lookup


class DisRememberingInstructions(types.ModuleType):
    """`dis`, except that `get_instructions(code)` (default options) remembers each code
    object's instructions."""

    def __init__(self):
        super().__init__(dis.__name__, dis.__doc__)
        self._instructions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __getattr__(self, name: str):  # everything else is `dis`'s own
        return getattr(dis, name)

    def get_instructions(self, x, *, first_line=None, show_caches=False, adaptive=False):
        if type(x) is not types.CodeType or first_line is not None or show_caches or adaptive:
            return dis.get_instructions(
                x, first_line=first_line, show_caches=show_caches, adaptive=adaptive
            )
        instructions = self._instructions.get(x)
        if instructions is None:
            instructions = self._instructions[x] = tuple(dis.get_instructions(x))
        return iter(instructions)


_signatures: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _signature(meta: Callable) -> inspect.Signature:
    try:
        found = _signatures.get(meta)
        if found is None:
            found = _signatures[meta] = inspect.signature(meta)
        return found
    except TypeError:  # not weakly referable or not hashable
        return inspect.signature(meta)


def normalize_with_remembered_signature(self, *args, **kwargs):
    """`Symbol.normalize`, with the meta function's signature computed once."""
    assert self.meta is not None
    bound = _signature(self.meta).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


PATCHES = PatchSet(
    "thunder",
    "speedup",
    [
        Part(
            "dis",
            lambda: [Patch.set(interpreter, "dis", DisRememberingInstructions())],
            ungated="swaps the interpreter's `dis` module for one remembering its answers",
        ),
        Part(
            "globals_lookup",
            lambda: [
                Patch.wrap(interpreter, "globals_lookup", globals_lookup_calling_the_lookaside)
            ],
            upstream=_upstream_globals_lookup,
        ),
        Part(
            "normalize",
            lambda: [Patch.set(symbol.Symbol, "normalize", normalize_with_remembered_signature)],
            upstream=_upstream_normalize,
        ),
    ],
    UPSTREAM_SOURCES,
)
skipped = PATCHES.skipped  # a speedup not installed -> why
install = PATCHES.install
uninstall = PATCHES.uninstall
installed = PATCHES.is_installed
installed_names = PATCHES.installed_names  # fuzz.speedups.state records them
