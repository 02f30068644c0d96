"""Lane names -> lane classes, imported lazily (each lane pulls in a heavy stack).

To add a lane: a class with `name`, `unavailable(device)` and `run(case, calls, reference,
device) -> LaneReport` (the protocol in fuzz/backends/base.py), in a package of its own
like fuzz/backends/exir/. Every lane declares its kinds (`<lane>.<what>`) with one public
function, fuzz.divergence.register_kinds. A built-in lane is one line in `_LANES`
(imported lazily) and a torch-free `kinds.py` in its package that calls register_kinds,
named in fuzz.divergence.BUILT_IN_KINDS_MODULES: the torch-free core imports it by name
when it first reads the catalogue, before any lane is imported. A plugin (a test's
stand-in lane, a lane of one's own) calls `register_lane(lane, kinds=...)`: its lane
object replaces or adds one by that name in this process, and its kinds join the
catalogue through the same register_kinds; `unregister_lane` undoes that.

This module imports no torch, so command lines can check lane and device names first.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fuzz.divergence import register_kinds, unregister_kinds

if TYPE_CHECKING:  # the protocol's module imports torch; names are checked without it
    from fuzz.backends.base import Lane

_LANES = {
    "thunder": ("fuzz.backends.thunder", "ThunderLane"),
    "exir": ("fuzz.backends.exir", "ExirLane"),
    "xnnpack": ("fuzz.backends.xnnpack", "XnnpackLane"),
    "thunderfx": ("fuzz.backends.thunderfx", "ThunderFXLane"),
    "thunderprims": ("fuzz.backends.thunderprims", "ThunderPrimsLane"),
}
LANE_NAMES = tuple(_LANES)
DEVICES = ("cpu", "cuda")
# Lanes whose stack runs on some devices only, whatever the machine: a night asked for
# `--devices cpu,cuda` runs them on these and does not count the others as blind spots.
ONLY_ON: dict[str, tuple[str, ...]] = {"xnnpack": ("cpu",)}


def lane_devices(lanes: Sequence[str], devices: Sequence[str]) -> list[tuple[str, str]]:
    """The (lane, device) pairs of `lanes` x `devices` that a run means: each lane on each
    device, less the devices a lane's stack never runs on (`ONLY_ON`)."""
    return [
        (lane, device)
        for device in devices
        for lane in lanes
        if device in ONLY_ON.get(lane, DEVICES)
    ]


_INSTANCES: dict[str, Lane] = {}


def register_lane(lane: Lane, kinds: Mapping[str, str] | None = None) -> Lane:
    """Use `lane` for lanes named `lane.name` in this process (a built-in lane's object is
    replaced; a new name becomes a known lane), its `kinds` ({"<name>.<what>": meaning})
    added to fuzz.divergence.KINDS first. Returns `lane`."""
    if kinds:
        register_kinds(lane.name, kinds)
    _INSTANCES[lane.name] = lane
    return lane


def unregister_lane(name: str) -> None:
    """Undo `register_lane` for lane `name` in this process (a test's stand-in, when the
    test ends): a plugin's lane and its kinds are forgotten; a built-in lane's object is
    built afresh on next use, and the kinds under a built-in lane's name stay."""
    _INSTANCES.pop(name, None)
    if name not in _LANES:
        unregister_kinds(name)


def _known() -> list[str]:
    return list(dict.fromkeys([*_LANES, *_INSTANCES]))


def get_lane(name: str) -> Lane:
    if name not in _LANES and name not in _INSTANCES:
        raise ValueError(f"unknown lane {name!r}; known lanes: {', '.join(_known())}")
    if name not in _INSTANCES:
        module, cls = _LANES[name]
        _INSTANCES[name] = getattr(importlib.import_module(module), cls)()
    return _INSTANCES[name]


def unknown_names(lanes: Sequence[str], devices: Sequence[str]) -> str | None:
    """An error message naming unknown lanes or devices, or None when all are known."""
    bad_lanes = [ln for ln in lanes if ln not in _known()]
    bad_devices = [d for d in devices if d not in DEVICES]
    if not bad_lanes and not bad_devices:
        return None
    return (
        f"unknown lane(s) {bad_lanes} / device(s) {bad_devices}; lanes: {_known()}, "
        f"devices: {', '.join(DEVICES)}"
    )
