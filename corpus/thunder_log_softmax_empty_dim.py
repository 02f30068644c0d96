"""Known upstream bug (Thunder 0.2.6, any cache): log_softmax and logsumexp over an empty dim raise.

`F.log_softmax(x, dim=0)` of a (0, 3) tensor. Thunder's `log_softmax`
(thunder/torch/__init__.py) computes `a - logsumexp(a, dim, keepdim=True)`, and its
`logsumexp` starts with `amax(a, dim, keepdim=True)`, which has no identity and rejects
an empty reduced dim: "RuntimeError: Can't reduce over a zero-size dimension when
computing a reduction without an identity value." (thunder.crash at call[0]; eager
returns an empty (0, 3) tensor). `logsumexp` has no empty branch (eager's returns -inf
over an empty dim: log of an empty sum), so `torch.logsumexp(x, dim=1)` of a (2, 0)
tensor fails alike, as do `torch.log_softmax` and `Tensor.log_softmax`; an empty tensor
whose reduced dim is not empty ((0, 3) over dim 1) works. The default cache fails the
same way; fixes on or off alike. Found by a nightly campaign, next to the softmax crash.

softmax over an empty dim raises the same error under symbolic values only, from another
defect: `_softmax` has an empty branch, which symbolic values skip
(corpus/thunder_softmax_empty_dim_symbolic.py).

Why it matters: log_softmax (cross-entropy style losses) and logsumexp over a batch or
sequence dim that is empty at one call crash under any Thunder cache.
"""

import torch
import torch.nn.functional as F


def program(x):
    return (F.log_softmax(x, dim=0),)


def calls():
    return [(torch.randn(0, 3),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the message
# of Thunder's amax on a program line that calls log_softmax or logsumexp; "at" is the
# catalogue op of a generated program ("logsumexp_dims" included) or the call on a
# hand-written line.
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "log_softmax"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "*.log_softmax"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "logsumexp*"},
    },
    {
        "kind": "thunder.crash",
        "details": r"Can't reduce over a zero-size dimension when computing a reduction",
        "facts": {"at": "*.logsumexp"},
    },
)
# Searched the issue index for "thunder logsumexp empty dim log_softmax", "thunder amax
# zero-size dimension empty input logsumexp -inf", "Can't reduce over a zero-size
# dimension when computing a reduction without an identity value" and "lightning-thunder
# softmax empty tensor": no upstream report found. Thunder main (2026-01-29, 1e22aac)
# has the same `logsumexp`.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "log_softmax and logsumexp over an empty dim raise in Thunder (amax has no identity)"
DESCRIBE = """
`F.log_softmax(x, dim=0)` of a (0, 3) tensor returns an empty (0, 3) tensor in eager
mode, but under `thunder.jit` (any cache option) it raises `RuntimeError: Can't reduce
over a zero-size dimension when computing a reduction without an identity value.`
Thunder's `log_softmax` (`thunder/torch/__init__.py`) computes `a - logsumexp(a, dim,
keepdim=True)`, and `logsumexp` starts with `amax(a, dim, keepdim=True)`, which rejects
an empty reduced dim. `torch.logsumexp(x, dim=1)` of a (2, 0) tensor fails the same way,
where eager returns `-inf` (the log of an empty sum). `_softmax` in the same file
already has a `numel == 0` branch that skips the max subtraction. `logsumexp` needs the
same kind of branch (ATen's `logsumexp` skips the max when `self.numel() == 0`). An
empty tensor whose reduced dim is not empty ((0, 3) over dim 1) works.
"""
RELATED = ("https://github.com/pytorch/pytorch/pull/9825",)
# Searched again on 2026-12-06 (issue and code indexes): "thunder logsumexp empty
# dimension amax zero-size reduction log_softmax"; "lightning-thunder softmax empty
# tensor zero-size dimension symbolic values numel". Found: no report of this bug.
