"""Known upstream bug (torch 2.9.1, fixed by torch 2.13.0): the fake kernel of
`torch.unique` gives its inverse indices and counts the input's dtype, not int64.

torch/_subclasses/fake_impls.py `_unique` (behind aten._unique2, unique_dim and
unique_consecutive) made the inverse and counts with `arg.new_empty(...)`, which inherits
the input's dtype; the real kernels always return int64. torch.export records that
dtype in meta['val'], and ExecuTorch 1.0.1 plans the inverse of a float32 input of at
most 7 elements as 7 float32 (28 bytes, 32 once aligned) where the runtime's kernel
writes 7 int64 (56 bytes): exir.under-allocation on every call. A bool input plans 16
bytes. An int64 input is planned right by chance.

Found by the legacy lane's fixes-on exploration (tests/stacks/fixes/test_legacy_specprop_proof.py)
once op weights drew `unique_inverse` there. The main lane (torch 2.13.0) has the fix.
"""

import torch


def program(x):
    values, inverse = torch.unique(x, sorted=True, return_inverse=True)
    torch._check(values.shape[0] <= x.numel())
    return (values, inverse)


def calls():
    return [
        (torch.tensor([1.0, 3.0, 1.0]),),
        (torch.tensor([2.0, 0.0, 2.0, 5.0, 0.0, 1.0, 2.0]),),
    ]


LANES = ("exir",)
DIMS = {"x": {0: (2, 7)}}
EXPECT = ("exir.under-allocation",)
VERSIONS = {"torch": "2.9.1", "executorch": "1.0.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the inverse
# ([1]) or counts ([2]) output of a unique op planned smaller than the int64 eager made.
MATCHES = (
    {
        "kind": "exir.under-allocation",
        "stage": "call",
        "details": (
            r"^aten_(_unique2|unique_dim|unique_consecutive)_default\[[12]\]: planned "
            r".* produced .*, torch\.int64\)$"
        ),
        "data": {"dtype": "torch.int64"},
    },
)
# Searched the issue index for "fake tensor unique return_inverse dtype int64 fake_impls
# _unique inverse counts": pytorch/pytorch#179401 ("[PT2] Fix FakeTensor dtype for
# torch.unique inverse_indices and counts", 2026-04) is this bug; torch 2.13.0's
# fake_impls.py makes both with dtype=torch.int64.
UPSTREAM = "https://github.com/pytorch/pytorch/pull/179401"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "FakeTensor unique gives inverse indices and counts the input's dtype, not int64"
DESCRIBE = """
The fake kernel for `aten._unique2`, `unique_dim` and `unique_consecutive` (`_unique` in
`torch/_subclasses/fake_impls.py`) creates the inverse indices and counts with
`arg.new_empty(...)`, which inherits the input's dtype, while the real kernels always
return int64. torch.export records that dtype in `meta['val']`, so `torch.unique(x,
return_inverse=True)` on a float32 input exports an inverse typed float32 and downstream
consumers size buffers from it. ExecuTorch 1.0.1 plans 7 float32 (28 bytes) for an
inverse that its runtime kernel writes as 7 int64 (56 bytes). Fixed by #179401, which
passes `dtype=torch.int64`; torch 2.13.0 has the fix, and torch 2.9.1 does not.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/pull/121571",
    "https://github.com/pytorch/pytorch/pull/126561",
)
FIXED_IN = "torch 2.13.0"
# Searched again on 2026-12-06 (issue and code indexes): "Fix FakeTensor dtype for
# torch.unique inverse_indices and counts"; "torch.export unique return_inverse fake
# tensor inverse dtype float instead of int64 scatter Expected dtype int64 for index".
# Found: https://github.com/pytorch/pytorch/pull/179401.
