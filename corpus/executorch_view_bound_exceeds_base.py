"""Known upstream bug (ExecuTorch 1.5.1, memory planning): a view whose upper bound exceeds
its base's is planned at the base's offset with its own, larger size, past the arena, and
the runtime refuses to load the program.

`x.unflatten(0, (n, x.shape[0] // n))`, with x of size s4 in [2, 7] and n = s24 in [2, 7]:
the view holds s4 elements at every call, but its shape's upper bound is taken dim by dim,
(7, 7 // 2) = (7, 3), 21 elements. ReplaceViewCopyWithViewPass makes it a `memory.view`
of x (a _ViewSpec: x's storage, x's offset) with that shape, so it claims 96 bytes where
x has 32: the greedy plan puts its bytes [32, 127] in an arena of 64 (the bytes of the
other input and of the output), the naive plan overlaps x2 and the output with it, and
the pip runtime's `load_method` fails with error 0x21. Eager returns `x.reshape(n, -1) *
2` for every call. (The output's own spec, (7, 1), is bounded tighter than the view's.)

The lane notes such a view on every plan (fact `plan`: "view-exceeds-base",
fuzz.backends.exir.oracles.overlap.views_exceeding_base), which is what identifies it.
Found by the fault-benchmark night of 2026-12-05 (seed 5, without the plugin): two
overlaps and a runtime-load failure around `x0.unflatten(0, (x2.shape[0], x0.shape[0] //
x2.shape[0]))`.
"""

import torch


def program(x0, x2):
    return (x0.unflatten(0, (x2.shape[0], x0.shape[0] // x2.shape[0])) * 2.0,)


def calls():
    return [(torch.randn(2), torch.randn(2)), (torch.randn(6), torch.randn(3))]


LANES = ("exir",)
DIMS = {"x0": {0: (2, 7)}, "x2": {0: (2, 7)}}
EXPECT = ("exir.overlap", "exir.crash")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): the plan has a view over more bytes than its base
# (fact `plan`), and the divergence is what that makes: a plan overlap or arena overflow,
# or the runtime refusing to load the program.
MATCHES = (
    {
        "kind": "exir.overlap",
        "stage": "memory-planning[*]",
        "details": r"outside its level's arena|live at the same time and share bytes",
        "facts": {"plan": "view-exceeds-base"},
    },
    {
        "kind": "exir.crash",
        "stage": "runtime-load",
        "details": r"Failed to load method",
        "facts": {"plan": "view-exceeds-base"},
    },
)
# Searched the issue index (pytorch/executorch, pytorch/pytorch) for "view_copy memory.view
# upper bound larger than base dynamic shape floor division unflatten Failed to load method
# error 0x21": no report. Nearest: pytorch/executorch#20008 (_ViewSpec incompatible with
# its base: shape_dynamism, not size).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "memory.view whose upper-bound size exceeds its base is planned past the arena"
DESCRIBE = """
For `x.unflatten(0, (n, x.shape[0] // n))` with `x` of size s in [2, 7] and `n` in [2,
7], the view always holds `s` elements, but its upper-bound shape is taken dim by dim:
(7, 7 // 2) = (7, 3), 21 elements. `ReplaceViewCopyWithViewPass` turns it into a
`memory.view` of `x` (a `_ViewSpec` sharing x's storage and offset) with that shape, so
the view claims 84 bytes (96 aligned) where `x`'s buffer has 28 (32). The greedy plan
then places bytes [32, 127] in an arena of 64, the naive plan overlaps other tensors
with it, and the runtime's `load_method` fails with error 0x21. Eager returns
`x.reshape(n, -1) * 2` for every input. `_ViewSpec` checks shape_dynamism and layout
against its base but not that the view's upper-bound nbytes fits in the base's; either
that check (falling back to `view_copy`) or bounding the view by its base's numel would
avoid it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/2463",
    "https://github.com/pytorch/executorch/issues/20008",
)
# Searched again on 2026-12-06 (issue and code indexes): "memory.view upper bound larger
# than base memory planning dynamic shape ReplaceViewCopyWithViewPass Failed to load
# method"; "executorch to_executorch view_copy _ViewSpec incompatible base
# shape_dynamism DYNAMIC_BOUND STATIC". Found: no report of this bug.
