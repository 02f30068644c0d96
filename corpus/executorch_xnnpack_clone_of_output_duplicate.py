"""Known upstream bug (ExecuTorch 1.5.1, XNNPACK delegate): a program that returns a
tensor and its clone fails to lower.

`v = x * 0.5; return v.clone(), v`. The partitioner takes `mul` and the clone into one
partition whose outputs are the clone and `v`. Inside preprocessing,
`XNNPACKRemoveCloneOpsTransform` (backends/xnnpack/_passes/__init__.py) removes the
clone: it keeps only clones that copy a graph *input* to an output
(`_is_input_output_copy`, pytorch/executorch#15884), and this one copies an intermediate.
The partition then returns `[v, v]`, and `generate_node_to_external_map`
(backends/xnnpack/xnnpack_preprocess.py) raises on the second occurrence of the same
output: "RuntimeError: Output node 'aten_mul_tensor' is already in the inputs. This is
likely due to pass through arguments, which are not supported in XNNPACK Delegate."
(xnnpack.crash at to_edge_transform_and_lower; eager returns both tensors; static shapes
fail the same way). Found by the XNNPACK lane's fault night (seed 1, 2026-12-07, without
the fault: `v5 = v3.clone()` of a value also returned, then cast to float16).
"""

import torch


def program(x):
    v = x * 0.5
    return (v.clone(), v)


def calls():
    return [(torch.randn(6, 2),), (torch.randn(3, 2),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (2, 8)}}
EXPECT = ("xnnpack.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): the preprocess check's words, in a program with a
# clone (the check also guards real pass-through inputs, pytorch/executorch#19152, whose
# program lowers on 1.5.1), or with an eval-mode dropout, which the edge program
# decomposes into the same clone (variants/.../dropout_eval.py).
MATCHES = (
    {
        "kind": "xnnpack.crash",
        "stage": "to_edge_transform_and_lower",
        "details": r"Output node '\w+' is already in the inputs",
        "facts": {"ops": "aten.clone.default"},
    },
    {
        "kind": "xnnpack.crash",
        "stage": "to_edge_transform_and_lower",
        "details": r"Output node '\w+' is already in the inputs",
        "facts": {"ops": "aten.dropout.default"},
    },
)
# Searched the issue index for "XNNPACK is already in the inputs pass through arguments"
# and "XNNPACK partition returns the same tensor twice clone removal": found #19152 (a
# permute with two consumers, the same message; closed, its program lowers on 1.5.1),
# #14937 (the PR that added the check) and #15884 (the PR that keeps input-to-output
# clones); no report of an intermediate returned with its clone.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "XNNPACK: returning a tensor and its clone fails to lower (the clone removed, output twice)"
DESCRIBE = """
`to_edge_transform_and_lower(export(M(), (torch.randn(6, 2),)),
partitioner=[XnnpackPartitioner()])` with `M.forward(x)` being `v = x * 0.5; return
v.clone(), v` raises `RuntimeError: Output node 'aten_mul_tensor' is already in the
inputs. This is likely due to pass through arguments, which are not supported in XNNPACK
Delegate.` Eager returns both tensors, and `to_edge(...).to_executorch()` runs. The
partition holds `mul` and the clone; `XNNPACKRemoveCloneOpsTransform` removes the clone
(it preserves only clones whose input is a graph input, #15884), so the partition returns
the same node twice, and `generate_node_to_external_map` rejects the duplicate output
with a message about inputs. Keeping clones whose output is a partition output when
their input is one too (or de-duplicating the outputs) would fix it.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/19152",
    "https://github.com/pytorch/executorch/pull/15884",
    "https://github.com/pytorch/executorch/pull/14937",
)
