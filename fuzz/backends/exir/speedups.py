"""Two pure-overhead costs of torch.export's `run_decompositions` (which `to_edge` runs on
every program), removed without changing what it computes.

On the small programs the harness generates, most of `to_edge` is registry bookkeeping
that does not depend on the program (figures: README "Figures", bench_lane):

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

`install()` is idempotent and undone by `uninstall()`; tests/test_exir_speedups.py checks
that `to_edge` builds the same graphs with and without them, and that the collection
equals upstream's, a newly registered op included.
"""

from __future__ import annotations
import __future__

import functools
import inspect
import textwrap
from collections.abc import Callable

import torch
import torch._export.utils as export_utils
import torch._ops
import torch.export.decomp_utils as decomp_utils
import torch.export.exported_program as exported_program

# Modules that imported `_collect_all_valid_cia_ops` by name (each is patched).
_COLLECT_USERS = (export_utils, exported_program, decomp_utils)

_originals: dict[str, Callable] = {}


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


def installed() -> bool:
    return bool(_originals)


def install() -> None:
    if _originals:
        return
    collect = export_utils._collect_all_valid_cia_ops
    _originals["collect"] = collect
    _originals["py_impl"] = torch._ops.OperatorBase.py_impl
    faster = collect_materializing_once(collect)
    for module in _COLLECT_USERS:
        module._collect_all_valid_cia_ops = faster
    torch._ops.OperatorBase.py_impl = py_impl_with_lazy_annotations(_originals["py_impl"])


def uninstall() -> None:
    if not _originals:
        return
    for module in _COLLECT_USERS:
        module._collect_all_valid_cia_ops = _originals["collect"]
    torch._ops.OperatorBase.py_impl = _originals["py_impl"]
    _originals.clear()
