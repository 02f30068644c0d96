"""Known upstream bug (ExecuTorch 1.5.1, to_edge): a `torch.sym_min` size fails the edge verifier.

`n = torch.sym_min(x.shape[0], x.shape[1])` is a size computed from two dynamic dims.
`torch.export` keeps it as a `torch.sym_min` call_function node (it is one of torch's
symbolic ops, and ExecuTorch has a prim for it, `executorch_prim::sym_min.Scalar`, in
exir/passes/executorch_prim_ops_registry.py). But `to_edge` verifies the graph before
that replacement runs, and `EXIREdgeDialectVerifier.check_valid_edge_op`
(exir/verification/verifier.py) only allows plain Python functions named "alloc":
`assert op.__name__ in ("alloc",)` raises a bare "AssertionError" (exir.crash at
to_edge; eager returns `x[:3, :3] + 1`). `operator.mul` and friends pass only because they
are builtins, not Python functions; `torch.sym_max`, `sym_float`, `sym_ite` and
`sym_not` fail alike.

Found by the EXIR lane twice: through the harness's custom op `head(x, n)`, whose fake
kernel sized its output `torch.sym_min(n, x.numel())` (an op downstream that needed that
size, `expand`, put the `sym_min` into the graph), and through user code as plain as
`x.narrow(0, 0, min(n, x.shape[0]))` (Python's `min` of an int and a SymInt is a
`sym_min`). `head` now zero-pads to exactly `n`, and the generator keeps the `min(...)`
narrow for the Thunder lane only (`narrow_number`), so this bug does not hide other
findings; this case keeps it registered.
"""

import torch


def program(x):
    n = torch.sym_min(x.shape[0], x.shape[1])
    return (x[:n, :n] + 1.0,)


def calls():
    return [(torch.randn(3, 5),), (torch.randn(6, 4),)]


LANES = ("exir", "xnnpack")  # the XNNPACK lane runs the same to_edge (its "to_edge" stage)
DIMS = {"x": {0: (2, 8), 1: (2, 8)}}
EXPECT = ("exir.crash", "xnnpack.crash")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": r"AssertionError",
        "facts": {"ops": "torch.sym_min"},
    },
    # The length of a diagonal of two dynamic dims is their sym_min; a reshape of it puts
    # the sym_min in the graph while `to_edge` decomposes, after export (the exported
    # graph has none: the XNNPACK lane's first campaign, 2026-12-07, bincount of a
    # flattened diagonal, on both lanes).
    {
        "kind": "exir.crash",
        "stage": "to_edge",
        "details": r"AssertionError",
        "facts": {"ops": ["aten.diagonal.default", "aten.reshape.default"]},
    },
)
# Searched the issue index for "to_edge verifier torch.sym_min AssertionError
# check_valid_edge_op": no upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_edge verifier fails with bare AssertionError on torch.sym_min/sym_max nodes"
DESCRIBE = """
`n = torch.sym_min(x.shape[0], x.shape[1]); return x[:n, :n] + 1` with both dims dynamic
exports fine, and ExecuTorch has a prim for it (`executorch_prim::sym_min.Scalar`,
mapped from `torch.sym_min` in `_PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS`,
exir/passes/executorch_prim_ops_registry.py). But `to_edge` verifies the graph before
that replacement: `EXIREdgeDialectVerifier.check_valid_edge_op`
(exir/verification/verifier.py) allow-lists `_EXECUTORCH_SYM_OPS`, i.e. the mapped
`executorch_prim` overloads, not the Python functions that are the keys of the table,
and then for any `types.FunctionType` runs `assert op.__name__ in ("alloc",)`, which
raises a bare `AssertionError`. `operator.*` targets pass because they are builtins, not
Python functions; `torch.sym_max`, `sym_float`, `sym_int`, `sym_ite` and `sym_not` fail
alike. The tests added with the prims (`test_emit_sym_min_max`, `test_emit_sym_not` in
exir/emit/test/test_emit.py) call `to_edge(...,
compile_config=EdgeCompileConfig(_check_ir_validity=False))`, which hides this; Python's
`min(n, x.shape[0])` in user code (as in `x.narrow(0, 0, min(n, x.shape[0]))`) produces
the same node.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/11988",
    "https://github.com/pytorch/executorch/pull/12037",
    "https://github.com/pytorch/executorch/pull/20641",
)
# Searched again on 2026-12-06 (issue and code indexes): "to_edge torch.sym_min
# AssertionError check_valid_edge_op verifier alloc"; "executorch sym_max not supported
# _PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS". Found: no report of this bug.
