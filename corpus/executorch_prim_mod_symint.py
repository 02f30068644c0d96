"""Known upstream bug (ExecuTorch 1.5.1): `executorch_prim::mod.Scalar` cannot be re-traced on
a symbolic size, so re-running SpecPropPass (which ExecuTorch notes backends call more than
once) raises where the stock pipeline does not.

`2 % x.shape[0]` exports as `operator.mod(2, s0)`; EdgeToBackendOpsPass replaces it with
`executorch_prim.mod.Scalar`, whose Python kernel in
`exir/passes/executorch_prim_ops_registry.py` is `SymInt(int(a) % int(b))`: `int(b)`
guards the symbolic size to the example's value, and `SymInt(...)` wraps a plain `int`
where a `SymNode` belongs, so the re-trace dies with
`AttributeError: 'int' object has no attribute 'is_int'` (exir.pipeline-variance at the
after-asserts and before-planning points). The other prim kernels (`floordiv`, `add`,
...) return `a // b` and keep the size symbolic. Found by the fixes-on EXIR property test
(a number input indexing a tensor by `n % x.shape[0]`).
"""

import torch


def program(x):
    return (x[2 % x.shape[0]],)


def calls():
    return [(torch.randn(2, 3),), (torch.randn(3, 3),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 3)}}
EXPECT = ("exir.pipeline-variance",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.pipeline-variance",
        "stage": "pipeline-variance[*]",
        "details": r"'int' object has no attribute 'is_int'(?s:.*)executorch_prim\.mod\.Scalar",
    },
)
# Searched the issue index for "executorch_prim mod.Scalar SymInt is_int": only the PRs
# that added the op (pytorch/executorch#4057, #5389); no report of this failure.
UPSTREAM = None
# Shown only by SpecPropPass re-run after EdgeToBackendOpsPass, where ExecuTorch says
# Interpreter-based passes must not run (pytorch/executorch PR #1372): outside the
# pipeline ExecuTorch supports.
CLASS = "limitation"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "executorch_prim.mod.Scalar's Python kernel cannot be re-traced on symbolic sizes"
DESCRIBE = """
After EdgeToBackendOpsPass, `2 % x.shape[0]` is `executorch_prim.mod.Scalar`, whose
Python kernel in exir/passes/executorch_prim_ops_registry.py is `return SymInt(int(a) %
int(b))`. When a pass re-traces the graph afterwards (e.g. SpecPropPass run again, which
backends do), `int(b)` guards the symbolic size to the example value and `SymInt(...)`
wraps a plain int where a SymNode is expected, so re-tracing raises `AttributeError:
'int' object has no attribute 'is_int'`. The other prim kernels (`floordiv`, `add`, ...)
return `a // b` etc. and stay symbolic; `return a % b` would do the same for mod.
"""
RELATED = (
    "https://github.com/pytorch/executorch/pull/5721",
    "https://github.com/pytorch/executorch/issues/15562",
)
# Searched again on 2026-12-06 (issue and code indexes): "executorch_prim mod.Scalar
# SymInt 'int' object has no attribute 'is_int' SpecPropPass". Found: no report of this
# bug.
