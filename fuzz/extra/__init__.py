"""Optional integrations, each behind an extra: `ray_engine` (the campaign on a Ray cluster,
`pip install .[cluster]`). A layer above fuzz.campaign: the command layer builds the engine
the user picks (`ray_engine_at`) and hands it to the campaign, which never imports this
package. Nothing outside it imports its modules at module top."""

from __future__ import annotations

import os

from fuzz.campaign.engines import Engine, EngineError

# Ray names a node by its "remotely reachable" address; a Ray instance that only lives on
# this machine (no --ray-address) should use loopback, and this switch, read when ray is
# imported, makes it do so.
LOOPBACK_RAY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def ray_engine_at(address: str | None) -> Engine:
    """The Ray engine for the cluster at `address` (None: a Ray instance it starts on this
    machine, on loopback); joined only when the campaign opens it."""
    if address is None:
        for key, value in LOOPBACK_RAY.items():
            os.environ.setdefault(key, value)
    try:
        from fuzz.extra.ray_engine import RayEngine  # imports ray
    except ImportError as e:
        raise EngineError(f"--engine ray needs ray (pip install '.[cluster]'): {e}") from e
    return RayEngine(address)
