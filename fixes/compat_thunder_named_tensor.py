"""Compat: let lightning-thunder 0.2.6 import on torch >= 2.13.

Thunder 0.2.6 lists five named-tensor methods (`align_as`, `align_to`, `has_names`,
`refine_names`, `rename`) in its table of auto-registered torch ops, by attribute
access at import time. torch 2.13 removed them from `torch.Tensor`, so `import thunder`
raises AttributeError. We restore exactly those five names as stubs that raise a clear
error if ever called. This is not a bug fix and is not governed by `--fixes` (nor by
`--speedups`): without it the Thunder lane cannot exist on the main lane at all.

The stubs are a `fixes._patching.PatchSet` (`SHIM`, kind "compat"), the mechanism of the
fixes and the speedups: it adds only names `torch.Tensor` lacks, replaces no function
(so it has no source gate), and `uninstall()` removes exactly what it added. What it
added is recorded with the speedups (fuzz/speedups.py `compat_state`: worker hello,
report.json, replay's JSON, case files).
"""

from __future__ import annotations

import functools

import torch

from fixes._patching import Part, Patch, PatchSet

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


def _stubs() -> list[Patch]:
    return [
        Patch.set(torch.Tensor, name, _removed(name))
        for name in NAMED_TENSOR_METHODS
        if not hasattr(torch.Tensor, name)
    ]


SHIM = PatchSet(
    "thunder-named-tensor",
    "compat",
    [Part("stubs", _stubs, ungated="adds only methods torch.Tensor lacks; replaces none")],
)


def ensure() -> list[str]:
    """Install the stubs that are missing (idempotent); returns the names it added (empty
    on older torch)."""
    SHIM.install()
    return [p.name for p in SHIM.patches()]


def import_thunder():
    """Import thunder with the compat stubs in place (the one way the harness imports it)."""
    ensure()
    import thunder

    return thunder
