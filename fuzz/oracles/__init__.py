"""Oracles: pure functions from observations to `Divergence` records.

results.py        outputs, dtypes, shapes, exceptions vs eager (stated tolerances)
aliasing.py       storage sharing and input mutation vs eager
thunder_cache.py  unsound cache hits and missed legal hits (trace comparison)
exir_*.py         the EXIR lane's planned-memory and aliasing oracles
"""
