"""Runtime kernel semantics that differ from ATen's, as eager emulations: whether a wrong
runtime result is what one of them computes.

A kernel fault of the runtime shows in every value computed from the kernel's output: an
integer remainder that keeps the dividend's sign (corpus/executorch_remainder_int_sign.py)
makes a float result several ops later wrong, with a tolerance, and a pattern over the
divergence alone cannot tell that from any other wrong float result of a program that
happens to hold an integer remainder. So for a call whose runtime result differs from
eager, the lane runs the exported (ATen) program again under each emulation whose ops the
program holds (`explained`), and the divergence gets the fact `matches_eager_with`
(fuzz/facts.py): the emulations whose outputs the runtime's equal, within the same
tolerances. Observed, not assumed: on that call the runtime computed what the emulated
semantics compute. An emulation that raises explains nothing.

Where the semantics in question are eager's own, not a kernel's, the emulation runs the
case's program itself (`EAGER_EMULATIONS`): `F.dropout(x, training=False)` returns x
itself in eager, so a later in-place write to x shows in dropout's result, while export's
decomposition returns a copy (corpus/torch_dropout_eval_identity_mutation_lost.py).
"dropout-eval-copy" runs the program with eval-mode dropout returning a copy.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from fuzz.backends.base import LaneReport
from fuzz.divergence import Divergence, call_index, pattern_kinds
from fuzz.observe import CallRecord, observe_call
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args

aten = torch.ops.aten


def _int_remainder_truncated(func: Any, args: tuple, kwargs: dict) -> Any:
    """`remainder` of integers as C's `%` (the sign of the dividend), i.e. `fmod`."""
    if func.overloadpacket is not aten.remainder:
        return NotImplemented
    a, b = args[0], args[1]
    a = a if isinstance(a, torch.Tensor) else torch.tensor(a)
    if a.is_floating_point() or (isinstance(b, torch.Tensor) and b.is_floating_point()):
        return NotImplemented
    if isinstance(b, float):
        return NotImplemented
    return torch.fmod(a, b)


def _gelu_tanh_as_exact(func: Any, args: tuple, kwargs: dict) -> Any:
    """`gelu(x, approximate="tanh")` computed as the exact (erf) GELU."""
    if func is not aten.gelu.default:
        return NotImplemented
    approximate = kwargs.get("approximate", args[1] if len(args) > 1 else "none")
    if approximate != "tanh":
        return NotImplemented
    return aten.gelu.default(args[0])


# name -> (an op the program must hold, as fuzz.facts names it; the replacement)
EMULATIONS: dict[str, tuple[str, Callable[[Any, tuple, dict], Any]]] = {
    "int-remainder-truncated": ("aten.remainder.", _int_remainder_truncated),
    "gelu-tanh-as-exact": ("aten.gelu.", _gelu_tanh_as_exact),
}


@contextlib.contextmanager
def _dropout_eval_copy() -> Iterator[None]:
    """Eval-mode (or p=0) dropout returns a copy of its input, as export's decomposition
    does, instead of the input itself."""
    original = F.dropout

    def dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input.clone()
        return original(input, p, training, inplace)

    F.dropout = dropout
    try:
        yield
    finally:
        F.dropout = original


# name -> (a name the program's code must use; the context that changes eager)
EAGER_EMULATIONS: dict[str, tuple[str, Callable[[], Any]]] = {
    "dropout-eval-copy": ("dropout", _dropout_eval_copy),
}


class _Replacing(TorchDispatchMode):
    def __init__(self, replace: Callable[[Any, tuple, dict], Any]):
        super().__init__()
        self.replace = replace

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = self.replace(func, args, kwargs)
        return func(*args, **kwargs) if out is NotImplemented else out


def emulated_call(ep: torch.export.ExportedProgram, name: str, args: Sequence[Any]) -> CallRecord:
    """The exported program on copies of `args` with emulation `name`'s semantics."""
    module = ep.module()
    with _Replacing(EMULATIONS[name][1]):
        return observe_call(module, copy_args(tuple(args)))


def explained(
    found: list[Divergence],
    report: LaneReport,
    ep: torch.export.ExportedProgram,
    args: Sequence[Any],
    got: CallRecord,
    stage: str,
    program: Callable[..., Any] | None = None,
) -> list[Divergence]:
    """`found` (the divergences of call `stage`, "call[2]") unchanged; when one is an
    exir.runtime-result (or a kind of the same bugs, fuzz.divergence.pattern_kinds: the
    XNNPACK lane's delegated kernels are runtime kernels too), the emulations whose
    outputs equal the runtime's `got` on this call go to
    report.details["explained_by_call"][2] (fuzz.facts: `matches_eager_with`); `program`
    (the case's) for the eager emulations. For an exir.edge-result (`got` is the edge
    program's), the eager emulations only: the edge program runs ATen's kernels, so a
    runtime kernel's semantics cannot explain it."""
    kinds = {kind for d in found for kind in pattern_kinds(d.kind)}
    if not kinds & {"exir.runtime-result", "exir.edge-result"}:
        return found
    ops = " ".join(report.details.get("ops") or ())
    names = []
    code = getattr(getattr(program, "__code__", None), "co_names", ())
    for name, (used, context) in EAGER_EMULATIONS.items():
        if program is None or used not in code:
            continue
        try:
            with context():
                emulated = observe_call(program, copy_args(tuple(args)))
        except Exception:
            report.counters["emulation-error"] += 1
            continue
        if not emulated.error and not compare_results("exir", emulated, got, "call", "cpu", True):
            names.append(name)
    for name, (op, _) in EMULATIONS.items():
        if op not in ops or "exir.runtime-result" not in kinds:
            continue
        try:
            emulated = emulated_call(ep, name, args)
        except Exception:
            report.counters["emulation-error"] += 1
            continue
        if not emulated.error and not compare_results("exir", emulated, got, "call", "cpu", True):
            names.append(name)
    if names:
        report.details.setdefault("explained_by_call", {})[call_index(stage)] = names
    return found
