"""How often the generator draws each op (fuzz.program picks a family by weight, then an
op of it uniformly), as data.

`FAMILY_WEIGHTS` is each op's weight by its family: the stress families this harness
exists for (unbacked sizes from data-dependent and custom ops, shape branches and
torch.cond, number inputs) weigh more. A family not listed weighs 1.

`WEIGH_BY` says what that weight applies to:

* "op" (the default): every op of a family weighs the family's weight, so a family's
  share of draws grows with its number of ops, and one of 28 math ops is drawn about as
  often as one of a 3-op family. The pick scales one gene value over the total weight
  (`Picker.weighted`), as the total is above the 256 values a gene holds.
* "family": a family's share is its weight whatever its number of ops (the generator
  until 2026-12-02; kept to compare, lab/bench_op_weights.py). It kept a growing
  catalogue of everyday ops from diluting the stress families, but drew each of 28 math
  ops at a tenth of a custom op's rate: `//` was 0.1 % of draws, about once a 120 s night.

Under "op" the nightly's coverage floors guard the stress families instead (EXIR: 30 % of
programs hold a data-dependent op, a custom op or a cond; Thunder: 25 % a number input;
tests/cover/generator/test_generator.py); custom and branch weigh 6 and 3 so that Thunder's
custom/cond share stays about a third (benchmarks/journal/). The first time it was the
default, CI's Hypothesis runs drew under it a `chunk` of a dim that is 1 at some call (a
rule bug the old weights hid, fixed in fuzz/ops/spec.py `half`).

`FOCUS_WEIGHT` is the weight of a program's focus, `FOCUS_SIZE` ops it draws as choices
(fuzz.strategies.focus_ops), picked as one more family (under "op": per focus op). A
nightly worker with the op focus on (fuzz/campaign/focus.py) draws them mostly among the
ops it has drawn least that night (`FOCUS_SHARE` of each draw); otherwise uniformly.

`LANE_WEIGHTS`: how often a case is drawn for each lane of a multi-lane run (a lane not
listed weighs 1). The two lanes the project exists for weigh twice the lanes that deploy
the same stacks another way, so that a default night (fuzz.defaults.NIGHTLY_LANES, five
lanes) gives each of them 2/7 of its programs, not 1/5.
"""

from __future__ import annotations

LANE_WEIGHTS: dict[str, int] = {"thunder": 2, "exir": 2}

FAMILY_WEIGHTS: dict[str, int] = {
    "data-dependent": 3,
    "custom": 6,
    "branch": 3,
    "number": 4,
    "view": 2,
    "inplace": 2,
    "broadcast": 2,
}

WEIGH_BY = "op"  # "op" or "family" (above)

FOCUS_FAMILY = "focus"
FOCUS_WEIGHT = 8
FOCUS_SIZE = 8  # ops in a program's focus
FOCUS_SHARE = 0.9  # of a focus draw, spread over a worker's least drawn ops
