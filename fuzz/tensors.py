"""Materializing a case's calls, and copying call arguments without breaking what the
oracles look at.

`materialize(case, seed, device)` seeds every RNG and builds the case's argument tuples
(the case format itself, fuzz/case.py, is torch-free).

Arguments are run through several backends, and in-place ops mutate them, so each
backend gets its own copy. A naive per-tensor clone breaks aliasing between inputs (the
same tensor twice, two views of one base): here each distinct storage is copied once and
every view is rebuilt on the copy with the same size, stride and storage offset.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from fuzz.case import Case


def materialize(case: Case, seed: int = 0, device: str = "cpu") -> list[tuple]:
    """Seed every RNG, call `case.calls()` (checked) and move the arguments to `device`."""
    random.seed(seed)
    torch.manual_seed(seed)
    return [copy_args(c, device) for c in case.checked_calls()]


def copy_args(args: Sequence[Any], device: str | torch.device | None = None) -> tuple:
    """Deep-copy `args` (tensors, numbers, nested tuples/lists), preserving storage sharing."""
    bases: dict[int, torch.Tensor] = {}
    copies: dict[int, torch.Tensor] = {}  # the same tensor passed twice stays one tensor

    def copy(value: torch.Tensor) -> torch.Tensor:
        if id(value) in copies:
            return copies[id(value)]
        storage = value.untyped_storage()
        key = storage.data_ptr() if storage.nbytes() else id(value)
        if key not in bases:
            flat = torch.empty(0, dtype=value.dtype, device=value.device).set_(
                storage, 0, (storage.nbytes() // value.element_size(),), (1,)
            )
            bases[key] = flat.detach().clone().to(device or value.device)
        base = bases[key]
        out = base.as_strided(value.size(), value.stride(), value.storage_offset())
        if value.is_leaf:
            out.requires_grad_(value.requires_grad)
        copies[id(value)] = out
        return out

    return tuple(map_tensors(copy, a) for a in args)


def map_tensors(fn: Callable[[torch.Tensor], Any], value: Any) -> Any:
    """`value` with `fn` applied to every tensor in it (through nested tuples and lists)."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(map_tensors(fn, v) for v in value)
    if isinstance(value, list):
        return [map_tensors(fn, v) for v in value]
    return value


def storage_key(t: torch.Tensor) -> int | None:
    """Identity of a tensor's storage (None for empty storage, which aliases nothing)."""
    storage = t.untyped_storage()
    return storage.data_ptr() if storage.nbytes() else None


def shares_storage(args: Sequence[Any]) -> bool:
    """Whether two tensors of a call share storage (empty storage shares nothing)."""
    leaves = torch.utils._pytree.tree_leaves(list(args))
    keys = [storage_key(t) for t in leaves if isinstance(t, torch.Tensor)]
    keys = [k for k in keys if k is not None]
    return len(keys) != len(set(keys))
