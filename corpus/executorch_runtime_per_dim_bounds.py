"""Known upstream bug (ExecuTorch 1.5.1 runtime): per-dimension input bounds are not checked.

Export specializes the shape branch by narrowing `x.shape[1]` to [2, 5] (the program's
`range_constraints`), but the runtime only checks that an input fits the planned buffer
(total size), not each dim's range. An input of shape (4, 7) is accepted and runs the
`x * 2` branch where eager takes `x - 100`: a silently wrong result. The harness probes
every exported program with an input just outside its ranges (exir.unchecked-contract).
"""

import torch


def program(x):
    if x.shape[1] < 6:
        return (x * 2,)
    return (x - 100,)


def calls():
    return [(torch.randn(4, 3),), (torch.randn(3, 5),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8), 1: (2, 8)}}
EXPECT = ("exir.unchecked-contract",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# Any program with a bounded dynamic dim shows this: do not file each one anew.
MATCHES = ("exir.unchecked-contract@contract[upper]",)
# Validation enforces only numel <= the bound, not each dim (open); the broader report that
# the .pte does not keep dynamic input shape constraints is pytorch/executorch#20066.
UPSTREAM = "https://github.com/pytorch/executorch/issues/20546"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Runtime accepts a DYNAMIC_BOUND input whose dimension exceeds its upper bound"
DESCRIBE = """
For a DYNAMIC_BOUND input, the only shape check at `set_input` is `numel(new_sizes) <=
numel_bound_` (`TensorImpl::internal_resize_contiguous`,
runtime/core/portable_type/tensor_impl.cpp); the individual dims are not compared with
the upper-bound shape stored in `Tensor.sizes`. `schema/program.fbs` says for
DYNAMIC_BOUND that "each dimension of the tensor at runtime should never exceed the
corresponding dimension of the upper bound shape". Example: export narrows `x.shape[1]`
to [2, 5] through `if x.shape[1] < 6: return x * 2`, so the .pte bound is (8, 5); an
input of shape (4, 7) (28 <= 40 elements) is accepted and silently runs the `x * 2`
branch, where eager returns `x - 100`.
"""
RELATED = ("https://github.com/pytorch/executorch/issues/20066",)
# Searched again on 2026-12-06 (issue and code indexes): "executorch runtime input
# validation numel upper bound not each dimension dynamic shape"; "Dynamic-shape input
# validation only enforces total numel upper_bound per-dimension bounds fix set_input";
# "method.cpp set_input enforce per-dimension upper bound DYNAMIC_BOUND
# input_tensor_meta". Found: https://github.com/pytorch/executorch/issues/20546.
