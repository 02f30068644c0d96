"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): a contiguous tensor whose last
dim is data-dependent cannot be lowered: `dim_order_from_stride` guards on `u < 1`.

`torch.nonzero(x > 0)` has shape (u, 1) and strides (1, u); its `.permute(1, 0)` becomes a
contiguous `permute_copy` of shape (1, u), strides (u, 1). `dim_order_from_stride`
(executorch/exir/tensor.py) sorts the strides with a key whose `__lt__` answers
`1 < u` through its divisibility rule but for `u < 1` falls through to the plain
comparison, a data-dependent guard: to_executorch raises GuardOnDataDependentSymNode
"Could not guard on data-dependent expression u17 < 1" (from dim_order_from_stride).
Which comparison the sort makes depends on the order of the strides, so (u, 1) fails
where (1, u) works; `torch.stack([v, v])` of an unbacked-size `v` fails alike. Eager
returns [[0, 2]] for x = [1, -1, 2]. Found by the fixes-on EXIR campaign; our fixes do
not touch it.

With backed sizes the same comparisons guard silently: a dynamic dim gets specialized to
its export-example value (the ShapeEnv refines its range to a singleton, recorded at
exir/tensor.py `__lt__`), and the program plans the example's sizes. Variant
backed_dim_specialized.py: `F.pad(x, (0, 1), mode="reflect")` of an `x` empty at the
example, last dim 4 there and dynamic in [3, 8]; SpecPropPass (to_executorch) sorts the
strides and guards s53 == 4, so the pad's `arange` is planned for 5 elements and a call
with a last dim of 6 fails `execute` ("Attempted to resize a bounded tensor with a
maximum capacity of 5 elements to 7 elements", op_arange.cpp). The lane records the
guard's frame in the fact `specialized` ("by:executorch/exir/tensor.py:__lt__"). Found
by the XNNPACK lane's campaign of 2026-12-07 (seed 2026), on the EXIR lane too.
"""

import torch


def program(x):
    return (torch.nonzero(x > 0).permute(1, 0),)


def calls():
    return [(torch.tensor([1.0, -1.0, 2.0]),)]


LANES = ("exir",)
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"Could not guard on data-dependent expression(?s:.*)in dim_order_from_stride",
    },
    # backed sizes: the stride sort's guard specializes a dim (the frame is a fact)
    {
        "kind": "exir.under-allocation",
        "stage": "call",
        "facts": {"specialized": "by:executorch/exir/tensor.py:__lt__"},
    },
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->(set_inputs|execute)\(\) (for method '\w+' )?failed",
        "facts": {"specialized": "by:executorch/exir/tensor.py:__lt__"},
    },
)
# Searched the issue index for "dim_order_from_stride GuardOnDataDependentSymNode unbacked
# stride": no report; the comparison came with pytorch/executorch#19516 (removing
# guard_size_oblivious from the stride sort).
UPSTREAM = None
CLASS = "bug"
# The backed variant's input is empty, so the runtime also takes a size past the declared
# range (it checks the numel only): that divergence is this other bug's.
ALSO = ("executorch_runtime_per_dim_bounds",)

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "dim_order_from_stride raises a data-dependent guard for strides (u, 1) with unbacked u"
DESCRIBE = """
`torch.nonzero(x > 0).permute(1, 0)` lowers to a contiguous `permute_copy` of shape (1,
u) and strides (u, 1), with u unbacked. to_executorch then fails with
`GuardOnDataDependentSymNode: Could not guard on data-dependent expression u < 1` from
`dim_order_from_stride` (exir/tensor.py). The sort key's `__lt__` first tries
`guard_or_false(a < b)`, then a divisibility rule (`b % a == 0 and a != b`) that answers
`1 < u` as True. For `u < 1` neither applies, and it falls through to the plain
`self.stride < other.stride`, which guards. Which comparisons Python's sort makes
depends on the stride order, so (1, u) works and (u, 1) fails; `torch.stack([v, v])` of
an unbacked-size `v` fails the same way. The symmetric rule (`guard_or_false(a % b ==
0)` implies not `a < b`, e.g. u < 1 -> False) or a `guard_or_false` fallback would avoid
the guard.

With backed sizes the guard is taken silently and can specialize a dynamic dim: `F.pad(x,
(0, 1), mode="reflect")` of an `x` of shape (0, 5, 4) at export, dims 1 and 2 dynamic
(2 in [3, 8]), gets its last dim fixed to 4 during `to_executorch` (SpecPropPass ->
TensorSpec.from_tensor -> dim_order_from_stride; the ShapeEnv records the replacement
s53 -> 4 at exir/tensor.py `__lt__`). The pad's `arange` is then planned for 5 elements,
and `execute` on an input of shape (0, 3, 6) fails: "Attempted to resize a bounded tensor
with a maximum capacity of 5 elements to 7 elements" (op_arange.cpp).
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/19516",
    "https://github.com/pytorch/executorch/pull/7657",
)
# Searched again on 2026-12-06 (issue and code indexes): "dim_order_from_stride
# GuardOnDataDependentSymNode unbacked stride executorch to_executorch"; "laithsakka
# guard_size_oblivious(1 < u0) assumed u0 >= 2 dim_order_from_stride((1, u0)) stride
# ordering review". Found: no report of this bug. Again on 2026-12-07 for the backed case
# ("dim_order_from_stride specializes dynamic dim guard SpecPropPass symbolic stride"): #19516's
# review says "for backed/concrete strides this is practically a `<` operation"; no report.
