"""Known upstream bug (Thunder 0.2.6, symbolic values): in-place update of an empty input raises.

`x1` (shape (0, 3)) is updated in place and `x0` (shape (0,)) is read. Under
`cache="symbolic values"` Thunder writes the in-place result back into `x1` with a
`reshape` to `x1`'s symbolic shape `(i1, i2)`, but the computation trace never binds the
proxy of `x1`'s empty dim: it unpacked only one proxy for size 0, the one of `x0`. The
call raises "UnboundLocalError: cannot access local variable 'i1' where it is not
associated with a value" (thunder.crash at call[0]; eager returns `2 * x0`, an empty
tensor). It needs an empty dim in the updated input and in another input the program
reads: (0,) with (0, 1), (0, 3) or (1, 0), and (3, 0) with (0, 1) all fail; (1,) with
(0, 1) and non-empty shapes work. The same holds for an in-place op whose broadcast source
is empty, `a.add_(b)` with a (0, 5), b (0, 1). The default cache runs it; fixes on or
off alike. Found by the generator once input dims could be empty.

Why it matters: any in-place update of a batch that happens to be empty crashes. The
generator keeps in-place ops on operands that may be empty for the EXIR lane only
(`add_empty`, `copy_empty`, `mul_empty` in fuzz/ops/inplace.py).
"""

import torch


def program(x0, x1):
    x1.add_(1.0)
    return (x0 * 2.0,)


def calls():
    return [(torch.randn(0), torch.randn(0, 3))]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
# Searched the issue index for "cannot access local variable where it is not associated
# with a value thunder" and "symbolic values empty tensor in-place": no upstream report.
UPSTREAM = None
