"""Known upstream bug (Thunder 0.2.6, any cache): `repeat_interleave` can alias its input.

`x.repeat_interleave(1, dim=0)` always returns a new tensor in PyTorch. Thunder decomposes
`repeat_interleave` with int repeats (thunder/torch/__init__.py, `repeat_interleave`) into
`unsqueeze(dim + 1) -> expand -> reshape`, and the torch executor runs that `reshape` as
`torch.reshape`, which returns a view whenever the expanded tensor's strides allow it:
when the repeat count is 1, or when the repeated dim has size 1 (`(1, 3)` repeated twice
along dim 0, `(2, 1)` along dim 1; `dim=None` on one element or with 1 repeat). Thunder's
output then shares storage with its input (thunder.aliasing at call[0]: "storage sharing
differs from eager: missing [], unexpected [(('out', 0), ('in', 0))]"; the default cache
gives the same). Writing to that result writes through to the caller's tensor:
`y = x.repeat_interleave(1, dim=0); y.add_(1)` changes `x` (thunder.aliasing, "(mutation)"),
and an in-place op on a size-1 dim repeated raises torch's "unsupported operation: more
than one element of the written-to tensor refers to a single memory location" where eager
wrote into a fresh tensor (thunder.crash). An in-place write to the input (or a view of it)
after the call shows through the returned result, a wrong value where eager's copy kept the
old one: `y = x.repeat_interleave(1, dim=0); x.add_(1.0); return (y,)` returns x + 1
(thunder.wrong-result, "output 0: values differ ... at [0]: 2.0 vs eager 1.0", next to the
aliasing divergence; Thunder's trace computes y as `torch.reshape(torch.expand(
torch.unsqueeze(x)))`, then `copy_(x + 1, x)`). Replacing repeat_interleave by `clone`, or
repeating twice along a dim of size 2 (no view), makes both divergences go away (checked
on the nightly's finding thunder_wrong_result_4a8bb591, 2026-12-02, where the write was
`v4.add_(v4)` on a `torch.chunk` of the input). `repeat` and `tile` copy as eager does.
Main (checked 2026-01-29) has the same decomposition. Found by the generator's
`repeat_interleave` op (fuzz/ops/sorting.py); fixes on or off alike.
"""

import torch


def program(x):
    return (x.repeat_interleave(1, dim=0),)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunder",)
EXPECT = ("thunder.aliasing",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): in a program
# with repeat_interleave, an output shares storage with an input where eager's does not,
# an in-place op after it changes an input, or a write after it shows in its returned result.
MATCHES = (
    {
        "kind": "thunder.aliasing",
        "details": r"unexpected \[.*\('out', \d+\), \('in', \d+\)\)",
        "facts": {"ops": "*repeat_interleave"},
    },
    {
        # Two outputs share storage: repeat_interleave's result, a view of an
        # intermediate, and another view of it returned too (`v[i]` next to
        # `v.repeat_interleave(1, dim=0)`; a default night at fa0a4a4, seed 1).
        "kind": "thunder.aliasing",
        "details": r"unexpected \[.*\('out', \d+\), \('out', \d+\)\)",
        "facts": {"ops": "*repeat_interleave"},
        "source": r"(\w+) = \w+\.repeat_interleave\([^\n]*\n[\s\S]*?\breturn \([^\n]*\b\1\b",
    },
    {
        "kind": "thunder.aliasing",
        "details": r"\(mutation\)",
        "facts": {"ops": ["*repeat_interleave", "torch.Tensor.*_"]},
        # The in-place op writes into repeat_interleave's own result (not any in-place op
        # of a program that happens to call repeat_interleave).
        "source": r"(\w+) = \w+\.repeat_interleave\([^\n]*\n[\s\S]*?\b\1\.\w+_\(",
    },
    {
        "kind": "thunder.wrong-result",
        "details": r"output \d+: values differ",
        "facts": {"ops": ["*repeat_interleave", "torch.Tensor.*_"]},
        # An in-place op after repeat_interleave, whose result the program returns: the
        # write to its input shows through Thunder's view (eager returned a copy).
        "source": r"(\w+) = \w+\.repeat_interleave\([^\n]*\n[\s\S]*?\.\w+_\("
        r"[\s\S]*\breturn \([^\n]*\b\1\b",
    },
    {
        "kind": "thunder.crash",
        "details": r"more than one element of the written-to tensor",
        # Thunder raised while running its trace: no ops fact; the program has both.
        "source": r"repeat_interleave\([\s\S]*\.\w+_\(",
    },
)
# Searched the issue index for "thunder repeat_interleave", "thunder repeat_interleave
# output aliases input view expand reshape": no upstream report found. Searched again
# 2026-12-02 for the wrong-result form ("thunder repeat_interleave returns view aliases
# input in-place", "lightning-thunder reshape returns view in-place copy_ output wrong value
# aliasing"; find_string "repeat_interleave"): the nearest is
# https://github.com/Lightning-AI/lightning-thunder/issues/957 (closed; `torch.reshape` may
# or may not return a view, so Thunder refuses an in-place op on a reshape's result, PR
# #958), which does not cover a reshape inside repeat_interleave's decomposition returned to
# the caller, nor a write to the reshape's input.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "repeat_interleave can return a view of its input (torch always returns a new tensor)"
DESCRIBE = """
`x.repeat_interleave(1, dim=0)` always returns a new tensor in PyTorch, but under
`thunder.jit` the result can share storage with `x`. Thunder decomposes
`repeat_interleave` with int repeats (`thunder/torch/__init__.py`) into `unsqueeze(dim +
1) -> expand -> reshape` (`reshape(-1, 1) -> expand -> reshape(-1)` for `dim=None`). The
torch executor runs that `reshape` as `torch.reshape`, which returns a view whenever the
expanded strides allow it: repeat count 1, or a repeated dim of size 1 (e.g. (1, 3)
repeated twice along dim 0). Consequences: `y = x.repeat_interleave(1, dim=0);
y.add_(1)` also changes `x`. An in-place op on a result whose size-1 dim was repeated
raises "more than one element of the written-to tensor refers to a single memory
location". A write to `x` after the call shows up in the returned `y`. `repeat` and
`tile` copy as eager does; making the final reshape of this decomposition always
materialize (e.g. a clone/contiguous copy) would match PyTorch.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/957",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2216",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder repeat_interleave
# returns view aliasing input reshape expand"; "lightning-thunder output shares storage
# with input where eager returns copy reshape torch executor view semantics". Found: no
# report of this bug.
