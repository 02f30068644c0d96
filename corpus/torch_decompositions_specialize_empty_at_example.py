"""Known upstream bug (torch 2.13 run_decompositions, through ExecuTorch's to_edge): a value
that is empty at the export example makes the lowering specialize its dim, silently.

`tensor_split(x, (2,), 0)` of an example with 2 rows has a second piece of size
`s77 - 2`: 0 at the example, not for the other sizes export declares (s77 in [2, 3];
export narrows the declared [2, 6] itself, from a contiguity guard `s77 - 2 < 2`, and
says so in `range_constraints`). Export evaluates `Eq(s77 - 2, 0)` with the guard
suppressed; `run_decompositions` (which `to_edge` runs) evaluates it again when it wraps
the value in a FunctionalTensor (`_make_wrapper_subclass`), this time as a guard:
"Ignored guard Eq(s77 - 2, 0) == True, this could result in accuracy problems", s77 -> 2.
The decomposed program is static at the example's sizes
(`ep.run_decompositions().range_constraints` is empty), so the plan holds 2 rows and a
call with 3, which the exported program accepts, is refused by the runtime
(`set_inputs` error 0x10) or, where it fits the rounded-up buffer, computed with the
planned sizes. No error is raised while lowering. Eager returns both pieces for every
size.

The same happens for `x[2:]`, `narrow(0, 1, n - 2)` and `zeros(n - 2)` at such an
example (torch alone: `torch.export.export(...).run_decompositions()`); where export
also keeps a guard that refuses the other sizes, the calls are outside the contract and
nothing shows. Found by the fixes-on EXIR campaign (seed 2026): a
`tensor_split(v.unsqueeze(0), (2,), 1)` whose second piece was empty at the example.
"""

import torch


def program(x):
    return torch.tensor_split(x, (2,), 0)


def calls():
    return [(torch.randn(2, 1),), (torch.randn(3, 1),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 6)}}
EXPECT = ("exir.under-allocation", "exir.crash")
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): to_edge
# specialized a declared dynamic dim that sizes a value empty at the export example (the
# lane's `specialized` fact, "empty-at-example"), and a later call of another size finds
# the plan too small or is refused by the runtime; where the runtime has no kernel for
# another op of the program, the edge program (run in eager instead, exir.edge-result)
# computes that value at the example's size, or fails a runtime assertion that bounds a
# data-dependent size by the example's (`u0 <= 2` after a `unique`: a fault-benchmark
# night of 2026-12-05, seed 4).
MATCHES = (
    {
        "kind": "exir.under-allocation",
        "stage": "call",
        "details": r"planned \[.*\] \(\d+ bytes\) but",
        "facts": {"specialized": ["to_edge", "empty-at-example"]},
    },
    {
        "kind": "exir.crash",
        "stage": "call",
        "details": r"method->(set_inputs|execute)\(\) (for method '\w+' )?failed",
        "facts": {"specialized": ["to_edge", "empty-at-example"]},
    },
    {
        "kind": "exir.edge-result",
        "stage": "call",
        "details": (
            r"^(output \d+: shape \("
            r"|the edge program raised RuntimeError: Runtime assertion failed for expression)"
        ),
        "facts": {"specialized": ["to_edge", "empty-at-example"]},
    },
)
# Searched the issue index (pytorch/pytorch, pytorch/executorch) for "run_decompositions
# tensor_split specializes dynamic dimension", "tensor_split dynamic shapes guard
# specialization export symbolic" and "Ignored guard run_decompositions FunctionalTensor
# empty": no report of this. Related: pytorch/pytorch#119321 (slicing with SymInt bounds
# forced specialization in non-strict export, closed) and the unbacked form of a slice
# decomposition's guard, corpus/torch_slice_decomposition_unbacked_guard.py.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "run_decompositions silently specializes a dim that sizes a value empty at the example"
DESCRIBE = """
`ep = torch.export.export(m, (torch.randn(2, 1),), dynamic_shapes=...)` for
`torch.tensor_split(x, (2,), 0)` keeps dim 0 dynamic (the second piece has size `s77 -
2`, which is 0 at the example) and `ep.range_constraints` says so, but
`ep.run_decompositions()` returns a program that is static at the example size
(`range_constraints` empty) without raising anything. While re-tracing, wrapping that
value in a FunctionalTensor (`torch/_subclasses/functional_tensor.py`,
`FunctionalTensor.__new__` -> `_make_wrapper_subclass`) evaluates `Eq(s77 - 2, 0)`; the
ShapeEnv is frozen, so `_check_frozen` only logs "Ignored guard Eq(s77 - 2, 0) == True,
this could result in accuracy problems", yet `s77` ends up replaced by 2. The exported
program before decomposition still accepts a 3-row input and eager returns both pieces
for every size, so downstream consumers (e.g. ExecuTorch's `to_edge`, which calls
`run_decompositions`) plan for 2 rows and fail or under-allocate at 3. The same happens
for `x[2:]`, `narrow(0, 1, n - 2)` and `zeros(n - 2)` when that size is 0 at the
example. Either the guard should not specialize here or the lowering should raise
instead of dropping the dynamic dim.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/issues/148702",
    "https://github.com/pytorch/pytorch/pull/175281",
    "https://github.com/pytorch/pytorch/pull/193416",
    "https://github.com/pytorch/pytorch/pull/97820",
    "https://github.com/pytorch/pytorch/issues/119321",
)
# Searched again on 2026-12-06 (issue and code indexes): "run_decompositions specializes
# dynamic dim Ignored guard Eq == True this could result in accuracy problems"; "export
# run_decompositions specializes shape to example value, range_constraints lost after
# decomposition"; "Dynamic shapes disappear after run_decompositions spectrogram
# sym_size_int specialized fix"; "Fixes #148702 run_decompositions dynamic shapes";
# "FunctionalTensor _make_wrapper_subclass guards specialization run_decompositions
# dynamic shape"; "Hand _make_wrapper_subclass the storage size it already knows
# computeStorageNbytes guard"; "Safely handle when decompositions add guards eellison
# inductor decomposition freeze guards _ShapeEnvGuardError"; "torch.export zero-size
# intermediate at example input specializes dynamic dim after run_decompositions frozen
# ShapeEnv ignored guard". Found: no report of this bug.
# Checked 2026-12-06: the repro script still fails on the torch 2.14.1 wheel (not fixed).
