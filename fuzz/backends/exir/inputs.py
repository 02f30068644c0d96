"""What the EXIR lane exports a program for, feeds it, and compares it with.

The export example is the first call, unless a dynamic dim has size 0 or 1 there
(export would specialize it): then the first call whose dynamic dims are all >= 2
(`pick_example`). Dynamic dims come from the case's DIMS, or from the sizes that vary
across the calls (`derive_dims`).

Every call is fed as independent contiguous copies of its tensors (`independent`), the
example included: export bakes the example's layout and aliasing into the program, and
the pip runtime takes contiguous inputs, each its own buffer. The lane's eager
reference is eager on those same copies (`lane_reference`): eager on the caller's
original inputs can differ from it where layout or aliasing is observable. For
example `neg(x).contiguous().view(-1)` aliases `neg(x)` only when it is contiguous, so
a later `add_` on it shows in the view for a contiguous input and not for a transposed
one; the program export recorded (from a contiguous example) computes the former. The
engine's reference is reused for calls whose tensors are already contiguous and share
no storage (most calls); the others are run again on their copies.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.backends.eager import float64_call
from fuzz.case import Case
from fuzz.observe import CallRecord, observe_call
from fuzz.tensors import copy_args, map_tensors, shares_storage


def derive_dims(case: Case, calls: Sequence[tuple]) -> dict[int, dict[int, tuple[int, int]]]:
    """{arg position: {dim: (min, max)}}: case.dims when given, else the dims of top-level
    tensor arguments whose size varies across the calls (min/max of observed sizes)."""
    names = case.input_names()
    if case.dims is not None:
        return {
            names.index(n): {int(d): (int(lo), int(hi)) for d, (lo, hi) in dims.items()}
            for n, dims in case.dims.items()
            if n in names
        }
    out: dict[int, dict[int, tuple[int, int]]] = {}
    first = calls[0]
    for p, a in enumerate(first):
        if not isinstance(a, torch.Tensor):
            continue
        for d in range(a.dim()):
            sizes = [
                c[p].shape[d]
                for c in calls
                if len(c) > p and isinstance(c[p], torch.Tensor) and c[p].dim() == a.dim()
            ]
            if len(set(sizes)) > 1:
                out.setdefault(p, {})[d] = (min(sizes), max(sizes))
    return out


def pick_example(calls: Sequence[tuple], dims: dict[int, dict[int, tuple[int, int]]]) -> int:
    """Index of the call to export with: the first call, unless its size on a dynamic dim
    is 0 or 1 (export would specialize the dim to it, leaving every other call outside
    the contract); then the first call whose dynamic dims all have sizes >= 2."""

    def ok(call: tuple) -> bool:
        return all(
            len(call) > p
            and isinstance(call[p], torch.Tensor)
            and call[p].dim() > d
            and call[p].shape[d] >= 2
            for p, ds in dims.items()
            for d in ds
        )

    return next((i for i, c in enumerate(calls) if ok(c)), 0)


def canonical_copy(value: torch.Tensor) -> torch.Tensor:
    """A contiguous copy with the canonical strides of its shape. An empty tensor counts as
    contiguous whatever its strides, so `contiguous()`/`clone()` keep odd ones, and the
    ExecuTorch runtime aborts the process on an input with non-canonical strides."""
    if value.numel() == 0:
        return torch.empty(value.shape, dtype=value.dtype, device=value.device)
    return value.detach().clone(memory_format=torch.contiguous_format)


def independent(args: Sequence[Any]) -> tuple:
    """A call as the runtime is fed: each tensor an independent contiguous copy.

    Export bakes the example's layout into the program (a transposed example gives its
    placeholder dim order (1, 0), which the pip runtime cannot be fed: it takes contiguous
    inputs only), and it bakes in the example's aliasing (the same tensor passed as two
    inputs becomes one node: the graph reads one input where the program reads the other,
    pytorch/pytorch#144683). So the program is exported for such copies, and every call
    is run on them."""

    def fresh(value: torch.Tensor) -> torch.Tensor:
        out = canonical_copy(value)
        return out.requires_grad_(value.requires_grad) if value.is_leaf else out

    return tuple(map_tensors(fresh, a) for a in args)


def is_independent(args: Sequence[Any]) -> bool:
    """Whether every tensor of a call is contiguous and shares storage with no other
    (then `independent(args)` behaves exactly like `args`)."""
    tensors = [t for t in pytree.tree_leaves(list(args)) if isinstance(t, torch.Tensor)]
    return all(t.is_contiguous() for t in tensors) and not shares_storage(args)


def lane_reference(
    program: Callable[..., Any], calls: Sequence[tuple], reference: Sequence[CallRecord]
) -> tuple[list[tuple], list[CallRecord], int]:
    """(the calls as fed, eager on them, how many calls eager ran again). `calls` are the
    lane's host copies; `reference` is the case runner's eager reference on them."""
    fed = [independent(args) for args in calls]
    out, rerun = [], 0
    for args, copies, ref in zip(calls, fed, reference):
        if is_independent(args):
            out.append(ref)
        else:
            record = observe_call(program, copy_args(copies))
            out.append(dataclasses.replace(record, reference64=float64_call(program, copies)))
            rerun += 1
    return fed, out, rerun


@dataclasses.dataclass
class LaneInputs:
    """What an ExecuTorch lane (EXIR, XNNPACK) exports for, feeds and compares with."""

    host: list[tuple]  # CPU copies of the calls, layout and aliasing as given
    fed: list[tuple]  # independent contiguous copies: exported for, run
    eager: list[CallRecord]  # eager on `fed`
    dims: dict[int, dict[int, tuple[int, int]]]  # the dynamic dims and their ranges
    example: int  # the call the program is exported with


def lane_inputs(
    case: Case, calls: Sequence[tuple], reference: Sequence[CallRecord], report: Any
) -> LaneInputs:
    """The lane's inputs for `calls` (the case runner's `reference` reused where the calls
    are already independent), counted in `report` (counters "reference-rerun",
    timings "lane-inputs", details "example_call")."""
    t = time.perf_counter()
    host = [copy_args(c, "cpu") for c in calls]
    fed, eager, rerun = lane_reference(case.program, host, reference)
    dims = derive_dims(case, host)
    example = pick_example(host, dims)
    report.counters["reference-rerun"] += rerun
    report.timings["lane-inputs"] += time.perf_counter() - t
    report.details["example_call"] = example
    return LaneInputs(host, fed, eager, dims, example)
