"""Lane names -> lane classes, imported lazily (each lane pulls in a heavy stack).

To add a lane: a class with `name`, `unavailable(device)` and `run(case, calls, reference,
device) -> LaneReport` (the protocol in fuzz/backends/base.py), one line in `_LANES`, and
its divergence kinds (`<lane>.<what>`) in fuzz/divergence.py.

This module imports no torch, so command lines can check lane and device names first.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol's module imports torch; names are checked without it
    from fuzz.backends.base import Lane

_LANES = {
    "thunder": ("fuzz.backends.thunder", "ThunderLane"),
    "exir": ("fuzz.backends.exir", "ExirLane"),
}
LANE_NAMES = tuple(_LANES)
DEVICES = ("cpu", "cuda")
_INSTANCES: dict[str, Lane] = {}


def get_lane(name: str) -> Lane:
    if name not in _LANES:
        raise ValueError(f"unknown lane {name!r}; known lanes: {', '.join(_LANES)}")
    if name not in _INSTANCES:
        module, cls = _LANES[name]
        _INSTANCES[name] = getattr(importlib.import_module(module), cls)()
    return _INSTANCES[name]


def unknown_names(lanes: Sequence[str], devices: Sequence[str]) -> str | None:
    """An error message naming unknown lanes or devices, or None when all are known."""
    bad_lanes = [ln for ln in lanes if ln not in _LANES]
    bad_devices = [d for d in devices if d not in DEVICES]
    if not bad_lanes and not bad_devices:
        return None
    return (
        f"unknown lane(s) {bad_lanes} / device(s) {bad_devices}; lanes: {list(LANE_NAMES)}, "
        f"devices: {', '.join(DEVICES)}"
    )
