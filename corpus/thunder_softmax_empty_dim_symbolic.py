"""Known upstream bug (Thunder 0.2.6, symbolic values): softmax over an empty dim raises.

`torch.softmax(x, dim=0)` of a (0, 3) tensor. Thunder's `_softmax`
(thunder/torch/__init__.py) skips the max subtraction when `a.numel == 0`, because the
`amax` it would take has no identity and rejects an empty reduced dim. Under
`cache="symbolic values"` numel is deferred: `_infer_tensor_properties`
(thunder/core/proxies.py) stores it as a lambda, and `TensorProxy.__getattr__("numel")`
returns that lambda uncalled, so `a.numel == 0` compares a function with 0, is False,
and `amax` raises "RuntimeError: Can't reduce over a zero-size dimension when computing
a reduction without an identity value." (thunder.crash at call[0]; eager returns an
empty (0, 3) tensor). Any softmax whose softmax dim is empty fails: (0,) or (0, 3) over
dim 0, (3, 0) over dim 1, an empty intermediate (`x[2:]` of a (2, 3) input), the
`Tensor.softmax` method, `F.softmax` and `F.softmin`; an empty tensor whose softmax
dim is not empty ((3, 0) over dim 0) works. The default cache, where numel is an int,
takes the empty branch and runs it; fixes on or off alike. Found by a nightly campaign
(`torch.softmax(torch.relu(v), dim=0)` of a (0, 0, 0) input).

log_softmax over an empty dim raises the same error, from another defect:
Thunder's `logsumexp` has no empty branch at all, under any cache
(corpus/thunder_log_softmax_empty_dim.py).

Why it matters: softmax over a batch or sequence dim that is empty at one call (no
tokens, no detections) crashes under symbolic values, while a numel check meant for
exactly this case is in Thunder's source.
"""

import torch


def program(x):
    return (torch.softmax(x, dim=0),)


def calls():
    return [(torch.randn(0, 3),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the message
# of Thunder's amax on a program line that calls softmax (or softmin, which calls it);
# "at" is the catalogue op of a generated program or the call on a hand-written line.
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "softmax"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "*.softmax"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "softmin"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "*.softmin"},
    },
)
# Searched the issue index for "thunder softmax zero-size dimension reduction without
# identity", "lightning-thunder softmax empty tensor", "Can't reduce over a zero-size
# dimension when computing a reduction without an identity value" and "lightning-thunder
# numel property symbolic values": no upstream report found. Thunder main (2026-01-29,
# 1e22aac) has the same `_softmax` and the same deferred numel.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Symbolic values: softmax over an empty dim raises because `a.numel == 0` is never true"
DESCRIBE = """
With `cache="symbolic values"`, `torch.softmax(x, dim=0)` of a (0, 3) tensor raises
`RuntimeError: Can't reduce over a zero-size dimension when computing a reduction
without an identity value.`; eager and the default cache return an empty tensor.
`_softmax` (`thunder/torch/__init__.py`) skips the `amax` subtraction when `a.numel ==
0`. Under symbolic values `_infer_tensor_properties` (`thunder/core/proxies.py`) stores
numel as a deferred `lambda`, and `a.numel` resolves to the `numel` symbol, which
returns `a._numel` — that lambda, uncalled. So `a.numel == 0` compares a function with
0, is always False, and `amax` runs on the empty dim. Every softmax whose softmax dim is
empty fails (`Tensor.softmax`, `F.softmax`, `F.softmin`, an empty slice of a non-empty
input). Other `numel` checks written as a property in Thunder's decompositions are
probably affected in the same way.
"""
RELATED = (
    "https://github.com/Lightning-AI/lightning-thunder/issues/925",
    "https://github.com/Lightning-AI/lightning-thunder/issues/1257",
    "https://github.com/Lightning-AI/lightning-thunder/issues/2653",
)
# Searched again on 2026-12-06 (issue and code indexes): "lightning-thunder softmax
# empty tensor zero-size dimension symbolic values numel"; "thunder logsumexp empty
# dimension amax zero-size reduction log_softmax". Found: no report of this bug.
