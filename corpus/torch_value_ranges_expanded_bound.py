"""Known upstream quirk (torch 2.13 value ranges, seen through ExecuTorch 1.5.1 memory
planning): a data-dependent size bounded by a product of dims with an offset is planned
above its bound, because torch multiplies the bound out before bounding it.

`positive(x[:, 1:])` returns at most `s4*(s40 - 1)` elements: its fake kernel states
`u0 <= x.numel()` with `torch._check`, and the exported program asserts exactly that. With
s4 in [2, 3] and s40 in [2, 5] the bound is 3 * 4 = 12. When to_edge re-traces the
assertion, the ShapeEnv refines u0's range (`_refine_ranges`): it simplifies the
expression first, which multiplies it out to `s4*s40 - s4`, and bounds that by interval
arithmetic, where s4 counts once at its top (3 * 5) and once at its bottom (- 2): 13.
The plan holds 13 elements for u0. The results are right: an over-allocation by the
dependency problem of interval arithmetic, not a soundness bug; exir.bound-loss reports
it because the harness holds custom-op outputs to their declared bound, and marks it
(data "slack": "expanded-interval") when the bound under the multiplied-out assertions
explains the plan. Found by a fault-benchmark nightly on 2026-12-04 (with --max-ops 12;
the fault was elsewhere).
"""

import torch

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)


def program(x):
    return (torch.ops.fuzz.positive(x[:, 1:]),)


def calls():
    return [(torch.randint(-4, 5, (2, 4)),), (torch.randint(-4, 5, (3, 5)),)]


LANES = ("exir",)
DIMS = {"x": {0: (0, 3), 1: (2, 5)}}
EXPECT = ("exir.bound-loss",)
# Since the runtime runs fuzz:: ops (our kernels), its contract probes run too.
ALSO = ("executorch_runtime_per_dim_bounds", "executorch_runtime_unchecked_guards")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): a bound lost by no more than the bound of the
# multiplied-out assertions (fuzz/backends/exir/oracles/plan.py, `_mark_interval_slack`).
MATCHES = ({"kind": "exir.bound-loss", "data": {"slack": "expanded-interval"}},)
# Searched the issue index for "ShapeEnv value ranges loose upper bound unbacked symint
# expanded expression bound_sympy interval arithmetic" and "_refine_ranges simplify expand
# overestimates upper bound torch._check": no report. Related: pytorch/pytorch#97964
# (value range refinement from multi-variate expressions), #120800 (refining ranges on
# inequalities, `_maybe_guard_rel`), #105097 (a precision error of the range analysis).
UPSTREAM = None
CLASS = "plan-quality"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "ShapeEnv range refinement expands s0*(s1 - 1) before bounding, loosening the bound"
DESCRIBE = """
When `torch._check(u0 <= x.numel())` is replayed for a data-dependent `u0` with `x =
y[:, 1:]` (numel `s4*(s40 - 1)`), `ShapeEnv._refine_ranges`
(`torch/fx/experimental/symbolic_shapes.py`) first simplifies the relation, which
multiplies the right-hand side out to `s4*s40 - s4`, and then bounds it with
`bound_sympy`. Interval arithmetic treats the two occurrences of `s4` independently (top
of `s4*s40` minus bottom of `s4`), so with s4 in [2, 3] and s40 in [2, 5] the refined
upper bound of `u0` is 13 instead of 3 * 4 = 12. Results stay correct, but consumers
that size buffers from `var_to_range` (e.g. ExecuTorch memory planning) over-allocate.
Bounding the factored form (or taking the smaller of the factored and expanded bounds)
would give the tight value. This is the same dependency problem as #149774
(`bound_sympy(s0 - s0 % 8)`).
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/149774",
    "https://github.com/pytorch/pytorch/pull/104559",
    "https://github.com/pytorch/pytorch/pull/97964",
    "https://github.com/pytorch/pytorch/pull/120800",
)
# Searched again on 2026-12-06 (issue and code indexes): "ShapeEnv _refine_ranges upper
# bound loose expanded expression interval arithmetic dependency unbacked symint";
# "bound_sympy overestimates range of s0*s1 - s0 because symbol appears twice, factor
# before bounding"; "value range refinement multi-variate expressions ShapeEnv guards
# 2023". Found: no report of this bug.
