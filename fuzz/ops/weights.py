"""How often the generator draws each op (fuzz.program picks a family by weight, then an
op of it uniformly), as data.

`FAMILY_WEIGHTS` is each op's weight by its family: the stress families this harness
exists for (unbacked sizes from data-dependent and custom ops, shape branches and
torch.cond, number inputs) weigh more. A family not listed weighs 1.

`WEIGH_BY` says what that weight applies to:

* "op": every op of a family weighs the family's weight, so a family's
  share of draws grows with its number of ops, and one of 28 math ops is drawn about as
  often as one of a 3-op family. The pick scales one gene value over the total weight
  (`Picker.weighted`), as the total is above the 256 values a gene holds.
* "family" (the default, for now): a family's share is its weight whatever its number
  of ops (benchmarks/bench_op_weights.py compares both). "op" is not the default yet:
  CI's Hypothesis runs found, under it, `chunk` of a dim that is 1 at some call (torch
  returns one piece where the op's rule says two) and a number input left unused
  (tests/generator/test_generator.py); both to fix first. It kept a growing catalogue
  of everyday ops from diluting the stress families, but drew each of 28 math ops at a
  tenth of a custom op's rate: `//` was 0.1 % of draws, about once a 120 s night.

Under "op" the nightly's coverage floors guard the stress families instead (EXIR: 30 % of
programs hold a data-dependent op, a custom op or a cond; Thunder: 25 % a number input;
tests/generator/test_generator.py); custom and branch should then weigh 6 and 3 so that
Thunder's custom/cond share stays about a third (benchmarks/RESULTS.md).

`FOCUS_WEIGHT` is the weight of a nightly round's focus (fuzz/campaign/focus.py), the ops a
worker has drawn least that night, picked as one more family (under "op": per focus op).
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

WEIGH_BY = "family"  # "family" or "op" (above)

FOCUS_FAMILY = "focus"
FOCUS_WEIGHT = 8
