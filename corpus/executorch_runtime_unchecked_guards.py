"""Known upstream gap (ExecuTorch 1.5.1 runtime): export's shape guards are not in the .pte.

With a dynamic dim (Dim.AUTO, range [3, 5]) and an example of size 4, export keeps the
`else` branch of `if tuple(x.shape) == (3,)` and records the guard `x.size()[0] != 3` in
`ep._guards_code`: no range can express it, and `ep.module()` checks it on every call
(size 3 raises "Guard failed"). to_edge/to_executorch drop it, so the runtime accepts
x of size 3 and silently runs `x * x` where eager takes `x.abs()`: for x = [-1, 2, -3]
the runtime returns [1, 4, 9], eager [1, 2, 3]. The lane keeps such calls out of the
runtime comparison (they are outside the contract) and probes the first in-range size
that fails a guard (exir.unchecked-contract at contract[guard]).
"""

import torch


def program(x):
    if tuple(x.shape) == (3,):
        return (x.abs(),)
    return (x * x,)


def calls():
    return [(torch.randn(4),), (torch.tensor([-1.0, 2.0, -3.0]),), (torch.randn(5),)]


LANES = ("exir",)
DIMS = {"x": {0: (3, 5)}}
EXPECT = ("exir.unchecked-contract",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# Any program whose export keeps a guard no range can express shows this.
MATCHES = ("exir.unchecked-contract@contract[guard]",)
UPSTREAM = "https://github.com/pytorch/executorch/issues/20066"
CLASS = "bug"
