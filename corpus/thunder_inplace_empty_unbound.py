"""Known upstream bug (Thunder 0.2.6, symbolic values): an in-place op with two empty inputs raises.

`x` (shape (0, 3)) and `y` (shape (0,)) are both empty, and the program has an in-place
op (`v.add_(1.0)` on an intermediate). Under `cache="symbolic values"` Thunder's
computation trace then uses a size proxy it never binds (both inputs have a size of 0,
and only one proxy is unpacked for it): the call raises "UnboundLocalError: cannot access
local variable 'i2' where it is not associated with a value" (thunder.crash at call[0];
eager returns `(2 * y + 1, 2 * x)`, empty tensors). It needs an in-place op and two
inputs with an empty dim: (0, 3) with (0,), (3, 0) with (2, 0), and (0, 3) with (2, 0)
fail; one empty input, one input with two empty dims, or no in-place op work. An
in-place op whose broadcast source is empty fails alike, `a.add_(b)` with a (0, 5) and b
(0, 1). The default cache runs it; fixes on or off alike. Found by the generator once
input dims could be empty.

Why it matters: any program with an in-place op crashes when two of its inputs happen to
be empty batches. The generator keeps in-place ops in programs with a tensor that may be
empty for the EXIR lane only (`add_empty`, `copy_empty`, `mul_empty` in
fuzz/ops/inplace.py), so this crash does not hide other Thunder findings.
"""

import torch


def program(x, y):
    v = y * 2.0
    v.add_(1.0)
    return (v, x * 2.0)


def calls():
    return [(torch.randn(0, 3), torch.randn(0))]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"UnboundLocalError: cannot access local variable",
        "facts": {"sizes": "empty"},
        # An in-place method call: Thunder raised before it had a trace to take ops from.
        "source": r"\.\w+_\(",
    },
)
# Searched the issue index for "cannot access local variable where it is not associated
# with a value thunder" and "symbolic values empty tensor in-place": no upstream report.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Two empty input tensors are treated as aliases; with symbolic values an in-place op raises"
DESCRIBE = """
With `cache="symbolic values"`, `def f(x, y): v = y * 2.0; v.add_(1.0); return v, x *
2.0` called with `x = torch.randn(0, 3)` and `y = torch.randn(0)` raises
`UnboundLocalError: cannot access local variable 'i2' where it is not associated with a
value`; eager returns two empty tensors, and the default cache runs it. The likely
cause: `_alias_tensor_of_args_kwargs_dict` in `thunder/__init__.py` groups inputs by
`t.untyped_storage().data_ptr()`, and every empty CPU tensor has a null data pointer, so
two unrelated empty inputs are recorded as aliases. Because the program has an in-place
op, `replace_args_with_alias_map` (`thunder/core/update_aliases.py`) then replaces `y`
with `prims.reshape(x, y.shape)`. Under symbolic values `y.shape` is `(i2,)`, and
nothing in the computation trace defines `i2`. Any two empty inputs fail the same way:
(3, 0) with (2, 0), or (0, 3) with (2, 0). Storage-less (empty) tensors probably should
not be grouped as aliases at all.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/pull/2764",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2677",
)
VARIANT_OF = "thunder_symbolic_alias_reshape_unbound"
# Searched again on 2026-12-06 (issue and code indexes): "thunder empty tensors treated
# as aliases data_ptr 0 untyped_storage alias_tensor_indices"; "KeyError i23 symbolic
# shapes reshape aliased input update_aliases"; "lightning-thunder issue 2677 symbolic
# values aliased inputs reshape". Found: no report of this bug.
