"""Compat: let lightning-thunder 0.2.6 import on torch >= 2.13.

Thunder 0.2.6 lists five named-tensor methods (`align_as`, `align_to`, `has_names`,
`refine_names`, `rename`) in its table of auto-registered torch ops, by attribute
access at import time. torch 2.13 removed them from `torch.Tensor`, so `import thunder`
raises AttributeError. We restore exactly those five names as stubs that raise a clear
error if ever called. This is not a bug fix and is not governed by `--fixes`: without it
the Thunder lane cannot exist on the main lane at all.
"""

from __future__ import annotations

import functools

import torch

NAMED_TENSOR_METHODS = ("align_as", "align_to", "has_names", "refine_names", "rename")


def _removed(name: str):
    @functools.wraps(lambda *a, **k: None)
    def method(*args, **kwargs):
        raise NotImplementedError(
            f"torch.Tensor.{name} was removed in torch {torch.__version__}; "
            "this stub exists only so that lightning-thunder 0.2.6 can import"
        )

    method.__name__ = method.__qualname__ = name
    return method


def ensure() -> list[str]:
    """Install the stubs that are missing; returns their names (empty on older torch)."""
    added = []
    for name in NAMED_TENSOR_METHODS:
        if not hasattr(torch.Tensor, name):
            setattr(torch.Tensor, name, _removed(name))
            added.append(name)
    return added


def import_thunder():
    """Import thunder with the compat stubs in place (the one way the harness imports it)."""
    ensure()
    import thunder

    return thunder
