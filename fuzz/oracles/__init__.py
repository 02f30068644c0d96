"""Oracles: pure functions from observations to `Divergence` records.

results.py        outputs, dtypes, shapes, exceptions vs eager (stated tolerances), for
                  both lanes (`RESULT_KIND` names the kind per lane)
aliasing.py       storage sharing and input mutation vs eager
thunder_cache.py  unsound cache hits and missed legal hits (trace comparison)
exir_plan.py, exir_overlap.py, exir_variance.py, exir_aliasing.py
                  the EXIR lane's planned-memory and aliasing oracles
exir_graph.py     not an oracle: pure facts about EXIR graphs the oracles and the lane share
"""
