"""How often the generator draws the ops of each family, as data: the weight of each op
of the family (fuzz.program picks a family by its weight times its number of ops, then
an op of it uniformly).

An op weighs 1 unless its family is listed. The stress families this harness exists for
(unbacked sizes from data-dependent and custom ops, shape branches and torch.cond,
number inputs) weigh more, so that the everyday ops, five sixths of the catalogue, do
not dilute them below the nightly's coverage floors (EXIR: 30 % of programs hold a
data-dependent op, a custom op or a cond; Thunder: 25 % take a number input;
benchmarks/RESULTS.md). Since the weights are per op, a family that gains ops gains
draws: a catalogue that grows mostly outside the stress families needs these raised,
which the nightly's coverage figures show.

`FOCUS_WEIGHT` is the per-op weight of a nightly round's focus (fuzz/campaign/focus.py),
the ops a worker has drawn least that night, picked as one more family.
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
