"""Known upstream quirk (ExecuTorch 1.5.1 memory planning): a data-dependent size bounded
by 0 is planned as 2 elements.

The input has an empty dim at every call, so export specializes it to 0 and `x.numel()`
is 0: `positive(x)` (its fake kernel states `u <= x.numel()`) returns at most 0 elements.
The planned TensorSpec for it holds 2 elements, and `cat` of two of them 4: the upper
bound is evaluated with torch's size-oblivious reasoning, which assumes an unbacked size
is at least 2. The same root cause as corpus/executorch_unbacked_bound_one_planned_two.py
(bound 1 planned as 2); over-allocation, not a soundness bug. exir.bound-loss reports it
because the harness expects custom-op outputs to be planned at exactly their declared
bound. Found by the generator once input dims could be empty.
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    v = torch.ops.fuzz.positive(x)
    return (torch.cat([v, v], dim=0),)


def calls():
    return [(torch.randn(2, 3, 0),), (torch.randn(3, 2, 0),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 3), 1: (2, 5)}}
EXPECT = ("exir.bound-loss",)
# Since the runtime runs fuzz:: ops (our kernels), its contract probes run too.
ALSO = ("executorch_runtime_per_dim_bounds",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.bound-loss",
        "data": {"needed": 0},
    },
)
UPSTREAM = None  # no upstream report found (same as executorch_unbacked_bound_one_planned_two)
# an over-allocation: the results are right.
CLASS = "plan-quality"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Memory planning sizes a data-dependent output bounded by 0 as 2 elements"
DESCRIBE = """
When an input dim is specialized to 0, a custom op whose fake kernel states `u <=
x.numel()` (= 0) still gets a planned TensorSpec of 2 elements, and `cat` of two such
outputs 4. ExecuTorch's `eval_upper_bound` (exir/sym_util.py) reads
`shape_env.var_to_range`, and torch's `ShapeEnv._update_var_to_range` never lowers a
size-like unbacked symbol's upper bound below 2. The results are right; it is over-
allocation with a plan shape that disagrees with the program's bound.
"""
RELATED = ("https://github.com/pytorch/pytorch/pull/124283",)
VARIANT_OF = "executorch_unbacked_bound_one_planned_two"
# Searched again on 2026-12-06 (issue and code indexes): "(shared with
# executorch_unbacked_bound_one_planned_two)". Found: no report of this bug.
