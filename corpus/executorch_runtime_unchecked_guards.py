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

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Export shape guards are dropped from the .pte, so the runtime runs inputs export rejects"
DESCRIBE = """
With `x` dynamic in [3, 5] and an example of size 4, `torch.export` keeps the `else`
branch of `if tuple(x.shape) == (3,)` and records the guard `x.size()[0] != 3` in
`ep._guards_code`; no range can express it, so `ep.module()` checks it on every call
(size 3 raises "Guard failed"). `to_edge`/`to_executorch` do not carry the guard into
the program, and the .pte keeps only `sizes`, `shape_dynamism` and `dim_order` per
input. The runtime therefore accepts `x = [-1, 2, -3]` and silently returns `x * x` =
[1, 4, 9] where eager returns `x.abs()` = [1, 2, 3]. Lowering the guards (or at least
failing loudly when an export has guards the runtime cannot check) would avoid silent
wrong results.
"""
RELATED = (
    "https://github.com/pytorch/executorch/issues/20546",
    "https://github.com/pytorch/pytorch/pull/161178",
)
# Searched again on 2026-12-06 (issue and code indexes): "pte does not keep dynamic
# input shape constraints guards runtime accepts out-of-range shapes"; "Preserve
# ExportedProgram dynamic input shape constraints in .pte _guards_fn check_guards".
# Found: https://github.com/pytorch/executorch/issues/20066.
