"""Known upstream bug (ExecuTorch 1.5.1 runtime): per-dimension input bounds are not checked.

Export specializes the shape branch by narrowing `x.shape[1]` to [2, 5] (the program's
`range_constraints`), but the runtime only checks that an input fits the planned buffer
(total size), not each dim's range. An input of shape (4, 7) is accepted and runs the
`x * 2` branch where eager takes `x - 100`: a silently wrong result. The harness probes
every exported program with an input just outside its ranges (exir.unchecked-contract).
"""

import torch


def program(x):
    if x.shape[1] < 6:
        return (x * 2,)
    return (x - 100,)


def calls():
    return [(torch.randn(4, 3),), (torch.randn(3, 5),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 8), 1: (2, 8)}}
EXPECT = ("exir.unchecked-contract",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# Any program with a bounded dynamic dim shows this: do not file each one anew.
MATCHES = ("exir.unchecked-contract@contract[upper]",)
# Validation enforces only numel <= the bound, not each dim (open); the broader report that
# the .pte does not keep dynamic input shape constraints is pytorch/executorch#20066.
UPSTREAM = "https://github.com/pytorch/executorch/issues/20546"
CLASS = "bug"
