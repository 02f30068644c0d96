"""Thunder on CPU with its own decompositions: the torch executor limited to prims.

Thunder lowers a traced `ltorch` op (`thunder.torch.pad`, `tril`, `var`, ...) one of two
ways: an executor claims the op whole (on CPU, the torch executor calls `torch.pad`), or
no executor does and Thunder runs the op's decomposition, the bound symbols it recorded
while tracing it, down to prims (`thunder/executors/passes.py`, `OpExProcessor`). The
torch executor claims nearly every op, so on CPU Thunder's decompositions are dead code:
a fault injected into `pad`'s decomposition is never run. nvFuser, which claims prims
and fuses them, is where users run them, and it needs CUDA.

`PrimsFirstExecutor` is the torch executor (its very `implmap`: a fault patched into a
torch-executor lowering of a prim is live here) that declines every op whose
decomposition can run, so Thunder runs the decomposition and the torch executor runs
its prims. An op whose decomposition cannot run (none recorded, as for `cumsum`, or a
prim in it that no executor takes, as the number `prims.ceil` in `arange`'s) is claimed
whole, as the torch executor would. Which ops went which way is recorded per jit
(`decomposed`, `claimed`).

`thunder.jit` appends the "always" executors (the torch and Python executors) to any
executor list, and the torch executor there would claim the ops this one declines. So
`jit_with_decompositions` builds the jit with the torch executor left out of the always
executors (`thunder.extend.set_always_executors`, Thunder's public switch, read when
the jit is built) and puts them back at once.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any


@functools.cache  # one class per process; each jit gets its own instance
def _executor_class():
    from thunder.executors.pythonex import ex as pythonex
    from thunder.executors.torchex import ex as torchex
    from thunder.extend import OperatorExecutor

    class PrimsFirstExecutor(OperatorExecutor):
        """Thunder's torch executor, declining the ops Thunder can decompose."""

        def __init__(self, others: tuple = ()):
            super().__init__("torch_prims_first", version=torchex.version)
            self._implmap = torchex.implmap  # shared: torch-executor faults are live here
            self._opmap = torchex.opmap
            self._others = (*others, pythonex)  # executors that take some bound symbols first
            self.decomposed: set[str] = set()
            self.claimed: set[str] = set()

        def can_execute(self, bsym) -> bool:
            if bsym.sym.is_prim:
                return super().can_execute(bsym)
            if self._decomposes(bsym):
                self.decomposed.add(bsym.sym.name)
                return False
            if super().can_execute(bsym):
                self.claimed.add(bsym.sym.name)
                return True
            return False

        def _runs(self, bsym) -> bool:
            """Whether Thunder can execute `bsym` with this executor list."""
            if bsym.sym.python_impl is not None or bsym.sym.executor is not None:
                return True
            if any(ex.can_execute(bsym) for ex in self._others):
                return True
            if bsym.sym.is_prim:
                return super().can_execute(bsym)
            return self._decomposes(bsym) or super().can_execute(bsym)

        def _decomposes(self, bsym) -> bool:
            return bool(bsym.subsymbols) and all(self._runs(s) for s in bsym.subsymbols)

    return PrimsFirstExecutor


@contextlib.contextmanager
def _without_torch_always_executor() -> Iterator[None]:
    from thunder.executors.torchex import ex as torchex
    from thunder.extend import get_always_executors, set_always_executors

    before = list(get_always_executors())
    set_always_executors([ex for ex in before if ex != torchex])
    try:
        yield
    finally:
        set_always_executors(before)


def jit_with_decompositions(thunder, fn: Callable, cache: str, first: tuple = ()) -> Any:
    """`thunder.jit(fn, cache=cache)` running Thunder's decompositions: the executors
    `first` (the custom ops' executor), then `PrimsFirstExecutor`, then the Python
    executor. The executor is the jit's `._prims_executor` (its `decomposed` and
    `claimed` ops)."""
    from thunder.executors.pythonex import ex as pythonex

    prims_first = _executor_class()(first)
    with warnings.catch_warnings(), _without_torch_always_executor():
        warnings.simplefilter("ignore")
        jf = thunder.jit(fn, cache=cache, executors=[*first, prims_first, pythonex])
    jf._prims_executor = prims_first
    return jf
