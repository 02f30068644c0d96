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
While `thunder_general_jit` traces under symbolic values, a per-trace recorder keeps an
*expression* for every NumberProxy of the trace (replayable Python operators on inputs
the prologue can read back, or opaque/unknown origins) and a *decision log*: every time
Python observes a proxy's value, the expression and the value observed. When the
prologue is built (`unpack_inputs`), the log becomes one extra prologue check,
`check_symbolic_decisions(leaves...)`, that recomputes each expression from the new
inputs and raises `SymbolicDecisionChanged` (a miss) if any decision would go
differently; decisions that cannot be replayed pin the inputs they depend on (or every
symbolic input), which is always sound. Number inputs the computation takes also get an
exact type check (one it does not take reaches the trace only through replayed
observations).

One pass after tracing decides on symbolic sizes too: when inputs of the call share
storage (Thunder's prologue checks only *which* inputs share storage,
`cache_info["alias_tensor_indices"]`), `insert_alias_updates` replaces one input by another
and compares their shapes to decide whether to reshape it (`arg_to_replace.shape !=
arg.shape`). Stock Thunder therefore serves an entry traced with `x2` *being* `x1` to a
call where `x2` is a smaller view of `x1`, and computes with `x1` (x1-shaped results)
where the default cache misses. For such calls the check takes every symbolic input, and
the decisions logged while `insert_alias_updates` runs are compiled into its alias part
(shown with "(alias handling)" in the prologue); any failure there pins every symbolic
input.

Four narrowings keep the log to what the trace depends on (issue #21: the Thunder lane's
generated programs missed calls whose trace an entry already had):

* a call of a `thunder.torch.meta_adaptor` meta (every `torch.library` custom op and the
  auto-registered torch ops) logs one decision that replays the meta on fake tensors
  (`narrowings`), not a pin per size and number it read; at the top level of the trace its
  output sizes become symbolic (expressions of the replay, defined by `prims.shape`), so
  the decision compares the outputs' rank, dtype and device, and what the trace decides
  on the sizes is replayed; elsewhere an output tensor that nothing in the finished
  computation consumes is compared without its (static) sizes;
* `clang.arange`'s `math.isfinite` checks decide a number's finiteness, not its exact
  value (`patches`);
* the `or` chains of Thunder's shape checks (`broadcast_in_dim_meta`, `expand_impl`,
  `compute_broadcast_shape`) are logged as one decision each, the chain's truth plus
  which of its comparisons ran where those are bound into the trace (`narrowings`):
  `size == 1 is False` no longer pins a size that `stack`, `unsqueeze` or `expand` keeps
  as it is.

Nothing is specialised that the trace did not decide: `a + b` on (3, 4) + (3, 4) records
`a.shape[0] == b.shape[0]`-style equalities, so (5, 6) + (5, 6) still hits; `h(a)` with
(2, 3) then (2, 7) hits because only `a.shape[0] == 2` (and `!= 1`) was decided.

Modules
-------
Five modules, each one concept, importing each other's public names only (a name with a
leading underscore is used in its own module alone), in this order:

* `expressions`: the expression nodes, rendering, replay, how observations compare;
* `prologue`: the generated check and the prologue symbol that prints the decisions;
* `narrowings`: the narrowings that log one decision where the trace would log many:
  `meta_adaptor` metas as one replayed decision (fake tensors, memoised), and the `or`
  chains of Thunder's shape checks as one decision each;
* `recorder`: the per-trace `Recorder` (expressions, decision log, fallbacks, alias
  part), the entry points the patches call to record, and the `NumberProxy.value`
  descriptor that logs direct value reads;
* `patches`: the patch set (`PATCHES`: the table, `install()`, `uninstall()`), the
  replacements it installs, and the Thunder helpers adjusted so they do not create pins
  or decisions that the replay makes unnecessary.

Importing the package does not import Thunder: the modules import it inside the functions
that run once the fix is installed (or while a trace is recorded).

Not covered / limits: decisions on values that never pass through a NumberProxy (rank,
dtype, device, requires_grad: the stock prologue checks those); decisions taken by
Thunder's passes after tracing other than the alias handling (autograd, executor
passes); reads of
`proxy.__dict__["value"]`; numbers of `Unknown` origin are handled only by pinning
everything; entries traced before the fix was applied keep their old prologues (and
entries traced with it keep their checks after `uninstall()`). Every other decision counts,
also one whose outcome did not change the trace (`if common_shape[idx] == 1` in
`compute_broadcast_shape` is a real branch: `(3, 4) + (3, 4)` then `(1, 4) + (1, 4)`
misses); a meta replay costs a fake-tensor run per new combination of its inputs'
values in the prologue (memoised).

Everything is a runtime monkeypatch, installed by `install()` and removed by
`uninstall()` (through `fixes.apply` / `fixes.remove`); site-packages is not modified.
The patches do nothing outside `cache="symbolic values"` tracing.
"""

from __future__ import annotations

from packaging.version import Version

from fixes._registry import Fix, register
from fixes.thunder_symbolic_cache.patches import (
    PATCHES,
    VERSIONS,
    install,
    installed_patches,
    uninstall,
)
from fixes.thunder_symbolic_cache.prologue import FIX_NAME, SymbolicDecisionChanged
from fixes.thunder_symbolic_cache.recorder import Recorder

__all__ = [
    "FIX",
    "FIX_NAME",
    "PATCHES",
    "UPSTREAM",
    "SymbolicDecisionChanged",
    "install",
    "installed_patches",
    "uninstall",
    "Recorder",
]

UPSTREAM = "https://github.com/Lightning-AI/lightning-thunder/issues/1525"

FIX = register(
    Fix(
        name=FIX_NAME,
        package="lightning-thunder",
        upstream=UPSTREAM,
        summary=(
            'cache="symbolic values": record every decision taken on a symbolic value while '
            "tracing (comparisons' truth, __index__/__int__/__float__/__hash__, broadcasting, "
            "value reads) and replay them in the prologue, so a call hits only when each "
            "decision would go the same way; number inputs the computation takes are type-checked"
        ),
        versions=VERSIONS,
        covers=lambda v: v == Version("0.2.6"),
        already_fixed=lambda v: False,
        patches=PATCHES,
    )
)
