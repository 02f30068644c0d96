"""A call's values written as Python source: the concrete inputs of a repro script.

A tensor becomes the expression a maintainer would type: `torch.tensor([[1.541, -0.2934]])`
for a few values, `torch.ones(3000, dtype=torch.float16)` for a constant one,
`torch.empty(0, 3)` for an empty one. Floats are written with 4 significant digits (as
torch prints them) or, `exact=True`, with every digit (the repr of each value, which
gives the same tensor back). Many varying float values are written as
`torch.randn(shape)` where rounding is allowed (other values than replay's: the exporter
keeps that form only where the problem still shows). A tensor that cannot be written out
(many values where every digit counts, a view, a non-contiguous layout, storage shared
with another input) makes the whole call unwritable: `call_source` gives None and the script builds
the call with the program's own `calls()` instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

# More varying values than this, and a literal is no longer something a reader reads.
MAX_LITERAL = 24
_DEFAULT_DTYPE = {float: torch.float32, int: torch.int64, bool: torch.bool}


def _number(value: Any, exact: bool) -> str:
    if isinstance(value, bool) or isinstance(value, int):
        return repr(value)
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    text = repr(value) if exact else f"{value:.4g}"
    if not any(c in text for c in ".en"):  # keep it a float: `2.` would read as int 2
        text += ".0"
    return text


def _nested(values: Any, exact: bool) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v, exact) for v in values) + "]"
    return _number(values, exact)


def _kind(dtype: torch.dtype) -> type:
    if dtype == torch.bool:
        return bool
    return float if (dtype.is_floating_point or dtype.is_complex) else int


def _options(t: torch.Tensor, device: str, default_dtype: bool) -> str:
    out = ""
    if not default_dtype:
        out += f", dtype={t.dtype}"
    if device != "cpu":
        out += f', device="{device}"'
    if t.requires_grad:
        out += ", requires_grad=True"
    return out


def _shape(t: torch.Tensor) -> str:
    return ", ".join(map(str, t.shape)) if t.dim() else "()"


def tensor_source(t: torch.Tensor, device: str = "cpu", exact: bool = False) -> str | None:
    """`t` as an expression, or None when it cannot be written as a literal."""
    if not t.is_contiguous() or t.is_complex() or t.layout != torch.strided:
        return None
    t = t.detach().cpu() if not t.requires_grad else t.detach().cpu().requires_grad_()
    kind = _kind(t.dtype)
    default = _DEFAULT_DTYPE[kind] == t.dtype
    if t.numel() == 0:
        return f"torch.empty({_shape(t)}{_options(t, device, t.dtype == torch.float32)})"
    flat = t.reshape(-1)
    first = flat[0].item()
    same = bool((flat == flat[0]).all()) if not (kind is float and math.isnan(first)) else False
    if same and t.numel() > 1:
        maker = {0: "torch.zeros", 1: "torch.ones"}.get(first) if kind is not bool else None
        opts = _options(t, device, t.dtype == torch.float32)
        if maker:
            return f"{maker}({_shape(t)}{opts})"
        return f"torch.full(({_shape(t)},), {_number(first, exact)}{opts})".replace(",,)", ",)")
    if t.numel() > MAX_LITERAL:
        if exact or kind is not float or t.requires_grad:
            return None
        # many random-looking values: what a reader would write (the script seeds torch)
        return f"torch.randn({_shape(t)}{_options(t, device, t.dtype == torch.float32)})"
    return f"torch.tensor({_nested(t.tolist(), exact)}{_options(t, device, default)})"


def _shares_storage(tensors: list[torch.Tensor]) -> bool:
    seen = set()
    for t in tensors:
        if t.untyped_storage().nbytes() == 0:
            continue
        key = t.untyped_storage().data_ptr()
        if key in seen:
            return True
        seen.add(key)
    return False


def value_source(value: Any, device: str, exact: bool) -> str | None:
    if isinstance(value, torch.Tensor):
        return tensor_source(value, device, exact)
    if isinstance(value, (bool, int, float)):
        return _number(value, True)
    if value is None:
        return "None"
    if isinstance(value, (tuple, list)):
        parts = [value_source(v, device, exact) for v in value]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts) + ("," if isinstance(value, tuple) and len(parts) == 1 else "")
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return None


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def call_source(args: Sequence[Any], device: str = "cpu", exact: bool = False) -> list[str] | None:
    """Each argument of a call as an expression, or None when one cannot be written out
    (or two share storage: written apart they would not)."""
    if _shares_storage([t for a in args for t in _tensors(a)]):
        return None
    out = [value_source(a, device, exact) for a in args]
    return None if any(s is None for s in out) else out
