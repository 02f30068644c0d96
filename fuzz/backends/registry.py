"""Lane names -> lane classes, imported lazily (each lane pulls in a heavy stack)."""

from __future__ import annotations

import importlib

from fuzz.backends.base import Lane

_LANES = {
    "thunder": ("fuzz.backends.thunder", "ThunderLane"),
    "exir": ("fuzz.backends.exir", "ExirLane"),
}
LANE_NAMES = tuple(_LANES)
_INSTANCES: dict[str, Lane] = {}


def get_lane(name: str) -> Lane:
    if name not in _LANES:
        raise ValueError(f"unknown lane {name!r}; known lanes: {', '.join(_LANES)}")
    if name not in _INSTANCES:
        module, cls = _LANES[name]
        _INSTANCES[name] = getattr(importlib.import_module(module), cls)()
    return _INSTANCES[name]
