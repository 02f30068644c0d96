"""Known upstream bug (Thunder 0.2.6, symbolic values only): aliased view inputs of another
shape crash the computation with UnboundLocalError.

`b = a.view(3, 2)` shares `a`'s storage with another shape, and the program has an
in-place op, so Thunder's alias handling replaces `b` by `prims.reshape(a, b.shape)`.
Under `cache="symbolic values"` `b.shape` is `(i2, i3)`, sizes of `b`; once `b` is
replaced, the computation no longer takes `b` or its sizes as inputs, yet the reshape
still reads them: the first call raises "UnboundLocalError: cannot access local variable
'i2'" (thunder.crash at call[0]). The default cache bakes in (3, 2) and runs fine, so
the lane's control agrees with eager; it is not a cache decision (a single fresh call),
and fixes/thunder_symbolic_cache.py does not touch it.
"""

import torch


def program(a, b):
    return (b.exp().add_(1), a * 1)


def calls():
    base = torch.randn(2, 3)
    return [(base, base.view(3, 2))]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"UnboundLocalError: cannot access local variable",
        "data": {"control": "agrees with eager"},
        "facts": {"inputs": "*-views"},
    },
)
UPSTREAM = None  # no upstream report found
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Symbolic values: input and a view of it with another shape raise UnboundLocalError"
DESCRIBE = """
With `cache="symbolic values"`, `def f(a, b): return b.exp().add_(1), a * 1` called with
`base = torch.randn(2, 3)` and `(base, base.view(3, 2))` raises `UnboundLocalError:
cannot access local variable 'i2'` on the first call; the default cache runs it. Because
`b` shares `a`'s storage and the program has an in-place op,
`replace_args_with_alias_map` (`thunder/core/update_aliases.py`) replaces `b` with
`prims.reshape(a, b.shape)`. In 0.2.6 that reshape is bound with `arg_to_replace.shape`,
i.e. `b`'s symbolic sizes `(i2, i3)`, but no bound symbol in the computation trace
defines them. The generated computation therefore reads `i2` before assignment. PR #2764
on main inserts `prims.shape(arg_to_replace)` before the reshape under symbolic values,
which looks like the fix, but it is not in a release yet.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/2677",
    "https://github.com/Lightning-AI/lightning-thunder/pull/2760",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2653",
    "https://github.com/Lightning-AI/lightning-thunder/pull/2764",
)
# Searched again on 2026-12-06 (issue and code indexes): "KeyError i23 symbolic shapes
# reshape aliased input update_aliases"; "lightning-thunder issue 2677 symbolic values
# aliased inputs reshape"; "thunder empty tensors treated as aliases data_ptr 0
# untyped_storage alias_tensor_indices". Found: no report of this bug.
