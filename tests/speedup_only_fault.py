"""Test plugin: a fault that exists only while our speedups are on (a buggy speedup).

It installs the fault benchmark's `thunder_broadcast_max` fault (Thunder's broadcast
rule takes the max of two sizes, so a 0-size dim against 1 becomes 1) when the speedups
switch is on, and nothing when it is off: what a night finds with it must not survive the
stock re-run (fuzz/campaign/stock.py). tests/stacks/campaign/test_stock.py uses it.
"""

from fuzz import speedups

if speedups.enabled():
    import tests.faults.thunder_broadcast_max  # noqa: F401  (installs on import)
