"""Defaults that the command line, the campaign, the generator and the tests share, each
defined once here (torch-free, at the bottom of the layers, so the campaign's torch-free
protocol and the generator can both import it).

    MAX_OPS              ops per generated program: nightly --max-ops, CampaignSettings,
                         WorkerConfig, fuzz.strategies (programs, cases), fuzz.explore
    MAX_CALLS            calls per generated case: nightly --max-calls, CampaignSettings,
                         WorkerConfig, fuzz.strategies (call_plans, cases)
    NIGHTLY_BUDGET_S     nightly --budget: seconds of exploring
    NIGHTLY_LANES        nightly --lanes: the two lanes the project exists for, then the
                         ways users deploy the same stacks (XNNPACK, ThunderFX, Thunder's
                         decompositions); fuzz/ops/weights.py LANE_WEIGHTS shares the
                         programs out among them
    EXAMPLE_TIMEOUT_S    a program running longer is a hang: nightly --example-timeout
                         (CampaignSettings), replay --timeout (and ISOLATE cases in a
                         replay), the corpus items of ISOLATE cases under pytest
    MIN_SHRINK_BUDGET_S  nightly --shrink-budget's default is max(this, budget / 4)
    MAX_AUTO_WORKERS     nightly --workers auto: one worker per core, at most this many
    FIXES_SWITCH         --fixes (every command, pytest) when $FUZZ_FIXES is unset too:
                         fuzz.prepare.fixes_switch (fixes/ itself has no default)
    SPEEDUPS_SWITCH      --speedups (nightly, replay, fuzz.outcome) when $FUZZ_SPEEDUPS is
                         unset too: fuzz.speedups.switch, CampaignSettings, WorkerConfig

Both switches take `on|off|NAME,...` (fix names; lane names for the speedups), parsed
by the one parser, fixes._patching.parse_switch.
"""

from __future__ import annotations

MAX_OPS = 8
MAX_CALLS = 6
NIGHTLY_BUDGET_S = 120.0
NIGHTLY_LANES = ("thunder", "exir", "xnnpack", "thunderfx", "thunderprims")
EXAMPLE_TIMEOUT_S = 120.0
MIN_SHRINK_BUDGET_S = 20.0
MAX_AUTO_WORKERS = 8
FIXES_SWITCH = "on"
SPEEDUPS_SWITCH = "on"
