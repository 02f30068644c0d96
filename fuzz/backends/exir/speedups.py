"""Three pure-overhead costs of torch.export's `run_decompositions` (which `to_edge` runs on
every program), removed without changing what it computes.

On the small programs the harness generates, most of `to_edge` is registry bookkeeping
that does not depend on the program (figures: benchmarks/journal/2026-11-30.md, bench_lane):

* `torch._export.utils._collect_all_valid_cia_ops` walks every `torch.ops` namespace and,
  for each one, first re-runs `_materialize_cpp_cia_ops()` (a `getattr` over all ~800
  CompositeImplicitAutograd ops of the C++ dispatcher). Materializing is idempotent, so
  after the first namespace the other ~38 passes add nothing. `collect_materializing_once`
  runs it once per collection, then the upstream function with that step a no-op: the
  same ops are materialized before any namespace is read, so the result is the same set.
  Nothing is cached across calls (a custom op registered later is still seen).
* `OperatorBase.py_impl` (torch/_ops.py) defines an inner function whose annotations,
  `Callable[_P, _T]`, are built on every call; `run_decompositions` calls it ~12,000 times
  per program. `py_impl_with_lazy_annotations` is the same source compiled with
  postponed annotations (PEP 563), so the annotations are never evaluated.
* Those calls come from `torch.export.exported_program._override_composite_implicit_decomp`,
  which, twice per `to_edge`, gives each of ~550 CompositeImplicitAutograd ops ~22 Python
  kernels through `op.py_impl(key)(fn)` and takes them out again. For a DispatchKey that
  the op has no kernel for, `py_impl` only checks what kind of key it is, stores
  `py_kernels[key] = fn` and clears the op's dispatch cache.
  `override_composite_implicit_decomp_directly` is upstream's context manager with those
  stores written directly: the same kernels under the same keys in the same order, the
  same fake-tensor rules, the same restoration.

The speedups are one `fixes._patching.PatchSet` (`PATCHES`, the mechanism of the fixes
and the compat shim too): each replaces upstream only when the sources it reproduces or
relies on are ones it was checked against (`UPSTREAM_SOURCES`: the override with
`py_impl`, whose stores it writes out; the collection with `_materialize_cpp_cia_ops`,
whose idempotence it relies on; `py_impl_with_lazy_annotations` with the `py_impl` whose
source it recompiles; torch 2.13.0 and 2.9.1); any other torch keeps upstream's
(`skipped` says why). The switch that turns them all off: fuzz/speedups.py.

`install()` is idempotent and undone exactly by `uninstall()`;
tests/stacks/exir/test_exir_speedups.py checks that `to_edge` builds the same graphs with and
without them, that the collection equals upstream's (a newly registered op included), and
that the override leaves every op with the kernels and fake rules upstream's leaves,
inside the context and after it.
"""

from __future__ import annotations
import __future__

import contextlib
import functools
import inspect
import textwrap
from collections.abc import Callable

import torch
import torch._export.utils as export_utils
import torch._ops
import torch.export.decomp_utils as decomp_utils
import torch.export.exported_program as exported_program

from fixes._patching import Part, Patch, PatchSet, source_digest, unpatched

# Modules that imported `_collect_all_valid_cia_ops` by name (each is patched).
_COLLECT_USERS = (export_utils, exported_program, decomp_utils)

# The upstream sources each speedup reproduces or relies on -> their source_digest on the
# torch versions it was checked on (2.13.0, 2.9.1). Another source keeps upstream's.
UPSTREAM_SOURCES: dict[str, frozenset[str]] = {
    # _override_composite_implicit_decomp + OperatorBase.py_impl (whose stores the direct
    # override writes out)
    "override": frozenset({"de8cc4066c32f2b6", "8a7b915f9ef8fd3a"}),
    # _collect_all_valid_cia_ops + _materialize_cpp_cia_ops (idempotent: run once)
    "collect": frozenset({"2da289f45d3f3413", "1a20d75486fd8e92"}),
    # OperatorBase.py_impl (recompiled from its own source with postponed annotations)
    "py_impl": frozenset({"8173bd205b783783", "24474a72281072d0"}),
}


def _upstream_override() -> tuple[Callable, ...]:
    override = unpatched(exported_program, "_override_composite_implicit_decomp")
    return override, unpatched(torch._ops.OperatorBase, "py_impl")


def _upstream_collect() -> tuple[Callable, ...]:
    collect = unpatched(export_utils, "_collect_all_valid_cia_ops")
    return collect, export_utils._materialize_cpp_cia_ops


def _upstream_py_impl() -> tuple[Callable, ...]:
    return (unpatched(torch._ops.OperatorBase, "py_impl"),)


def upstream_hashes() -> dict[str, str]:
    """The installed torch's digests, keyed as UPSTREAM_SOURCES (originals when installed)."""
    return {
        "override": source_digest(*_upstream_override()),
        "collect": source_digest(*_upstream_collect()),
        "py_impl": source_digest(*_upstream_py_impl()),
    }


def _already_materialized() -> None:
    """`_materialize_cpp_cia_ops` once it has run in this collection."""


def collect_materializing_once(original: Callable) -> Callable:
    @functools.wraps(original)
    def collect():
        materialize = export_utils._materialize_cpp_cia_ops
        materialize()
        export_utils._materialize_cpp_cia_ops = _already_materialized
        try:
            return original()
        finally:
            export_utils._materialize_cpp_cia_ops = materialize

    collect.__wrapped__ = original
    return collect


def py_impl_with_lazy_annotations(original: Callable) -> Callable:
    lines, first = inspect.getsourcelines(original)
    # blank lines first, so tracebacks point at the real lines of torch/_ops.py
    source = "\n" * (first - 1) + textwrap.dedent("".join(lines))
    code = compile(
        source,
        inspect.getsourcefile(original) or "<py_impl>",
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    namespace: dict = {}
    exec(code, vars(inspect.getmodule(original)), namespace)
    recompiled = namespace[original.__name__]
    recompiled.__qualname__ = original.__qualname__
    recompiled.__wrapped__ = original
    return recompiled


def _force_dispatch_to_orig_cia_callable(fake_tensor_mode, op, *args, **kwargs):
    """Upstream's nested function of the same name (the fake rule a CIA op gets)."""
    orig_cia_callable = kwargs["original_callable"]
    del kwargs["original_callable"]
    with fake_tensor_mode:
        return orig_cia_callable(*args, **kwargs)


@contextlib.contextmanager
def override_composite_implicit_decomp_directly(cia_ops_to_callable):
    """`_override_composite_implicit_decomp` (torch/export/exported_program.py), with each
    `op.py_impl(key)(fn)` for a key the op has no kernel for written as the store it
    makes (`py_kernels[key] = fn`); the op's dispatch cache is cleared once its kernels
    are in, before anything can dispatch it. Upstream's comments explain the rest."""
    ep = exported_program
    cia = torch._C.DispatchKey.CompositeImplicitAutograd
    saved_tables = {}
    patched_ops = set()
    for op_overload, decomp_callable in cia_ops_to_callable.items():
        kernels = op_overload.py_kernels
        saved_tables[op_overload] = kernels.copy()
        patched_ops.add(op_overload)
        for key in ep._AUTOGRAD_ALIAS_BACKEND_KEYS_TO_OVERRIDE:
            if key not in kernels:
                kernels[key] = ep.autograd_not_implemented(op_overload, deferred_error=True)
        orig_cia_callable = ep._get_decomp_for_cia(op_overload)
        kernels.pop(cia, None)
        kernels[cia] = decomp_callable
        if not ep._is_op_registered_to_fake_rule(op_overload):
            ep.register_op_impl(op_overload)(
                functools.partial(
                    _force_dispatch_to_orig_cia_callable, original_callable=orig_cia_callable
                )
            )
        for key in ep._BACKEND_KEYS_TO_OVERRIDE:
            if key not in kernels:
                kernels[key] = orig_cia_callable
        op_overload._dispatch_cache.clear()
    try:
        yield
    finally:
        for op in patched_ops:
            op.py_kernels.clear()
            op.py_kernels.update(saved_tables[op])
            op._dispatch_cache.clear()
            ep._deregister_op_impl(op)


def upstream_override_is_known() -> bool:
    """Whether upstream's `_override_composite_implicit_decomp` (and the `py_impl` it
    calls) is a version `override_composite_implicit_decomp_directly` reproduces."""
    return upstream_hashes()["override"] in UPSTREAM_SOURCES["override"]


def _collect_table() -> list[Patch]:
    faster = collect_materializing_once(export_utils._collect_all_valid_cia_ops)
    return [Patch.set(m, "_collect_all_valid_cia_ops", faster) for m in _COLLECT_USERS]


PATCHES = PatchSet(
    "exir",
    "speedup",
    [
        Part("collect", _collect_table, upstream=_upstream_collect),
        Part(
            "py_impl",
            lambda: [Patch.wrap(torch._ops.OperatorBase, "py_impl", py_impl_with_lazy_annotations)],
            upstream=_upstream_py_impl,
        ),
        Part(
            "override",
            lambda: [
                Patch.set(
                    exported_program,
                    "_override_composite_implicit_decomp",
                    override_composite_implicit_decomp_directly,
                )
            ],
            upstream=_upstream_override,
        ),
    ],
    UPSTREAM_SOURCES,
)
skipped = PATCHES.skipped  # a speedup not installed -> why
install = PATCHES.install
uninstall = PATCHES.uninstall
installed = PATCHES.is_installed
installed_names = PATCHES.installed_names  # fuzz.speedups.state records them
