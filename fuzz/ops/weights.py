"""How often the generator draws each op family (fuzz.program picks a family by weight,
then an op of it uniformly), as data.

A family's weight is its share of op draws against the others, whatever its number of
ops. The stress families this harness exists for (unbacked sizes from data-dependent and
custom ops, shape branches and torch.cond, number inputs) weigh more, so that a growing
catalogue of everyday ops never dilutes them below the nightly's coverage floors (EXIR:
30 % of programs hold a data-dependent op, a custom op or a cond; benchmarks/RESULTS.md).
A family not listed weighs 1.

`FOCUS_WEIGHT` is the weight of a nightly round's focus (fuzz/campaign/focus.py), the ops a
worker has drawn least that night, picked as one more family.
"""

from __future__ import annotations

FAMILY_WEIGHTS: dict[str, int] = {
    "data-dependent": 3,
    "custom": 3,
    "branch": 2,
    "number": 4,
    "view": 2,
    "inplace": 2,
    "broadcast": 2,
}

FOCUS_FAMILY = "focus"
FOCUS_WEIGHT = 8
