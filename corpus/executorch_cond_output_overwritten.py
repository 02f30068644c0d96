"""Known upstream bug (ExecuTorch 1.5.1 memory planning + emitter): a torch.cond result
that is still live when a later torch.cond runs is overwritten by that cond's branch.

Memory planning (`exir/memory_planning.py` `apply_algo` / `_apply_algo_to_submodules`)
plans every control-flow submodule (both branches of every cond) from offset 0 of one
shared scratch region, sized to the largest submodule, and plans the parent graph above
it. The emitter (`exir/emit/_emitter.py`, `_Emitter.output` for a branch) hands a
branch's result to the cond's output value with a `MoveCall`, and the runtime executes
`MoveCall` as an EValue copy (`values[to] = values[from]`): the cond's output becomes the
branch's tensor, inside the scratch region, not a copy in the buffer planned for it. The
next cond's branch writes its result to the same offset, so every earlier cond output
read after it silently takes the later branch's values. Here all four branch results
sit at offset 0 (x + 1, then x * 10 for x = ones(3)): eager returns ([2, 2, 2],
[10, 10, 10]), the runtime ([10, 10, 10], [10, 10, 10]). The predicates may be data or
shape predicates; the wrong value is the later branch's (often exactly 2x eager when that
branch is `x * 2.0`). A program with one cond, or whose first cond output is dead before
the second cond, is right. Found by the fixes-on EXIR campaign (exir.runtime-result);
our fixes do not touch it.
"""

import torch


def program(x):
    a = torch.cond(x.sum() > 0, lambda x: x + 1.0, lambda x: x - 1.0, (x,))
    b = torch.cond(x.sum() > 0, lambda x: x * 10.0, lambda x: x * 20.0, (x,))
    return (a, b)


def calls():
    return [(torch.ones(3),), (torch.tensor([-1.0, 2.0, -3.0]),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): wrong values
# in a program with two (or more) conds.
MATCHES = (
    {
        "kind": "exir.runtime-result",
        "stage": "call",
        "details": r"values differ",
        "facts": {"ops": "higher_order.cond x2"},
    },
)
# "Higher Order Op Output Memory Planning" (open); fixes proposed in PRs #21494, #21818.
UPSTREAM = "https://github.com/pytorch/executorch/issues/21490"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Output of an earlier torch.cond is overwritten by a later cond's branch at run time"
DESCRIBE = """
Memory planning places every control-flow submodule (both branches of every cond) at
offset 0 of one shared arena (`_apply_algo_to_submodules` in exir/memory_planning.py).
The emitter hands a branch's result to the cond's output with a `MoveCall`, which the
runtime executes as an EValue copy, so the cond output keeps pointing into that arena. A
later cond's branch writes its result to the same offset, and every earlier cond output
that is still live silently takes the later branch's values. With `a = cond(x.sum() > 0,
x + 1, x - 1)` and `b = cond(x.sum() > 0, x * 10, x * 20)` on `x = ones(3)`, eager
returns ([2, 2, 2], [10, 10, 10]) and the runtime returns ([10, 10, 10], [10, 10, 10]).
A single cond, or a first cond whose output is dead before the second runs, is correct.
This is the sibling-HOP variant described in #21490.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/21494",
    "https://github.com/pytorch/executorch/pull/21818",
)
# Searched again on 2026-12-06 (issue and code indexes): "Higher Order Op Output Memory
# Planning cond output overwritten executorch". Found:
# https://github.com/pytorch/executorch/issues/21490.
