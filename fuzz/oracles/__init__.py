"""Oracles every lane shares: pure functions from observations to `Divergence` records.

results.py        outputs, dtypes, shapes, exceptions vs eager (stated tolerances), for
                  every lane (`RESULT_KIND` names the kind per lane)
aliasing.py       storage sharing and input mutation vs eager

A lane's own oracles live with it: fuzz/backends/thunder/oracles/ (the cache's unsound
and missed legal hits), fuzz/backends/exir/oracles/ (planned memory and aliasing).
"""
