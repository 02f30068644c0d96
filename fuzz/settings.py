"""Hypothesis settings profiles shared by pytest, the nightly job and replay.

    dev      quick local runs
    ci       bounded and derandomized (same examples every run), keeps its example database
    nightly  large and random; the campaign's own database replays yesterday's failures first

`deadline=None` everywhere: a first jit or export of a program legitimately takes
seconds. Select with HYPOTHESIS_PROFILE=name (pytest: --hypothesis-profile=name).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

settings.register_profile("dev", max_examples=20, **_COMMON)
settings.register_profile("ci", max_examples=60, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("nightly", max_examples=5000, **_COMMON)


def load_profile(name: str | None = None) -> None:
    settings.load_profile(name or os.environ.get("HYPOTHESIS_PROFILE", "dev"))
