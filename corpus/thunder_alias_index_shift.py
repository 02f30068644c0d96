"""Known upstream bug (Thunder 0.2.6, any cache): an unrelated input is merged with an aliased one.

`a` and `b` are the same tensor (zeros), `c` is a separate tensor (ones), and `a` is
unused. Thunder records the storage-sharing call arguments by position,
`alias_tensor_indices = "0,1"`, but `replace_args_with_alias_map` looks those positions
up in the computation trace's arguments, which drop the unused `a`: `(b, c)`. So it
"merges" `c` into `b` (the trace says "`c` is replaced by `b`") although `c` shares no
memory with anything, and computes `c.exp().add_(1)` from `b`: thunder returns
exp(0) + 1 = 2.0 for every element of output 0 where eager returns exp(1) + 1 = 3.718
(thunder.wrong-result at call[0]). The same position mismatch raises IndexError when
the shifted position runs past the end (thunder_alias_unused_input_crash.py).

Fixes on or off and the default cache all show it. Related upstream report (the crash
form, closed): Lightning-AI/lightning-thunder#1236; this silent form was not found
reported.
"""

import torch


def program(a, b, c):
    return (c.exp().add_(1), b * 1)


def calls():
    t = torch.zeros(3)
    return [(t, t, torch.ones(3))]


LANES = ("thunder",)
EXPECT = ("thunder.wrong-result",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.wrong-result",
        "data": {"control": "diverges too"},
        "facts": {"inputs": "same-tensor"},
    },
)
UPSTREAM = None  # related, the crash form (closed): https://github.com/Lightning-AI/lightning-thunder/issues/1236
CLASS = "bug"
