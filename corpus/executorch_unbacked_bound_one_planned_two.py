"""Known upstream quirk (ExecuTorch 1.5.1 memory planning): a data-dependent size bounded
by 1 is planned as 2 elements.

`positive_head(x, 1)` returns at most one element: its fake kernel states `u <= 1` with
`torch._check`, and `range_constraints` says u in [0, 1]. The planned TensorSpec for it
(and for `* 2` downstream) holds 2 elements: the upper bound is evaluated with torch's
size-oblivious reasoning, which assumes an unbacked size is at least 2. With bounds of 2
or more the plan is exact (see tests/stacks/exir/test_exir_oracles.py), so this is over-allocation,
not a soundness bug; exir.bound-loss reports it because the harness expects custom-op
outputs to be planned at exactly their declared bound. The aligned byte size is the
same (16 bytes) for float32, so it costs nothing here, but the shape in the plan is wrong.
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    return (torch.ops.fuzz.positive_head(x, 1) * 2,)


def calls():
    return [(torch.randn(4, 3),), (torch.randn(5, 3),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8)}}
EXPECT = ("exir.bound-loss",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# Any unbacked size bounded by 1 shows this (a bound of 2 or more is planned exactly).
MATCHES = ({"kind": "exir.bound-loss", "data": {"needed": 1, "planned": 2}},)
UPSTREAM = None  # no upstream report found
# an over-allocation: the results are right.
CLASS = "plan-quality"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Memory planning sizes a data-dependent output bounded by 1 as 2 elements"
DESCRIBE = """
A custom op whose fake kernel allocates an unbacked size with `ctx.new_dynamic_size()`
and states `torch._check(u <= 1)` gets a TensorSpec (and downstream `* 2` spec) of 2
elements. ExecuTorch plans from `eval_upper_bound` (exir/sym_util.py), which reads
`shape_env.var_to_range`, and torch's `ShapeEnv._update_var_to_range` deliberately never
refines a size-like unbacked symbol's upper bound below 2 (`if upper < 2 and symbol in
self.size_like: vr = ValueRanges(lower, 2)`, so that size-oblivious reasoning stays
consistent). Bounds of 2 or more are planned exactly. The results are right; this is
over-allocation and a plan shape that disagrees with the program's stated bound.
ExecuTorch could take the tighter bound from the program's runtime asserts for such
symbols.
"""
RELATED = ("https://github.com/pytorch/pytorch/pull/124283",)
# Searched again on 2026-12-06 (issue and code indexes): "unbacked symint torch._check
# upper bound 1 becomes 2 size-oblivious value range memory planning"; "find_string:
# refuse to refine the range to be". Found: no report of this bug.
