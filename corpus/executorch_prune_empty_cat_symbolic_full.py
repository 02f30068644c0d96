"""Known upstream bug (ExecuTorch 1.5.1, to_executorch): a cat of empty tensors with a
dynamic dim cannot be emitted: "Unsupported type encountered in int list".

x has shape (s0, 0) with s0 dynamic. `torch.cat([x, x], dim=1)` (or a `torch.stack` of
empty tensors, which decomposes to cat) has only empty inputs, so PruneEmptyTensorsPass
(executorch/exir/passes/prune_empty_tensors_pass.py) replaces it with
`aten.full(tuple(cat_tensor.shape), 0)`, putting the raw SymInt s0 of the node's fake
value in the size list instead of a `sym_size` node; the emitter cannot box it and
raises "InternalError: Failed with error: Unsupported type encountered in int list"
at `aten.full.out((s4, 0), 0)`. Eager returns an empty (3, 0) tensor. Found by the
fixes-on EXIR campaign (stack of a (3, 1, 0) input); our fixes do not touch it.
"""

import torch


def program(x):
    return (torch.cat([x, x], dim=1),)


def calls():
    return [(torch.randn(3, 0),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 6)}}
EXPECT = ("exir.crash",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the emitter's
# error at the node it marks (fuzz.backends.exir.pipeline.stage_error_text), a full.out
# whose size list holds a symbol (s4, 2*s4): the pass's raw SymInt. An empty input was
# asked for until the failing node was in the divergence, and missed a tensor emptied
# inside the program (an expand to a number input that is 0, then a cat).
MATCHES = (
    {
        "kind": "exir.crash",
        "stage": "to_executorch",
        "details": r"Unsupported type encountered in int list\.\nAt: %\w+ : .*"
        r"target=torch\.ops\.aten\.full\.out\]\(args = \(\([^)]*\b[su]\d+",
    },
)
# Searched the issue index for "PruneEmptyTensorsPass full symbolic shape" and
# "Unsupported type encountered in int list": no upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "PruneEmptyTensorsPass puts raw SymInts into aten.full sizes; emitter fails on empty cat"
DESCRIBE = """
For x of shape (s0, 0) with s0 dynamic, `torch.cat([x, x], dim=1)` (or a `torch.stack`
of empty tensors) has only empty inputs, so PruneEmptyTensorsPass
(exir/passes/prune_empty_tensors_pass.py) replaces it with
`aten.full(tuple(cat_tensor.shape), 0)`. That size tuple holds the raw SymInt s0 from
the node's fake value instead of a `sym_size` node, and `to_executorch` fails with
"InternalError: Failed with error: Unsupported type encountered in int list" at
`aten.full.out((s4, 0), 0)`. Eager returns an empty (3, 0) tensor. The pass should build
the size list from `sym_size` nodes (or skip the rewrite when the shape is symbolic).
"""
RELATED = ("https://github.com/pytorch/executorch/pull/20809",)
# Searched again on 2026-12-06 (issue and code indexes): "PruneEmptyTensorsPass cat
# empty tensors full symbolic shape emitter Unsupported type encountered in int list";
# "executorch to_executorch torch.cat empty tensors dynamic dim fails emit full.out
# SymInt size". Found: no report of this bug.
