"""Known upstream bug (ExecuTorch 1.5.1, XNNPACK delegate): `gelu(x, approximate="tanh")`
delegated to XNNPACK computes the exact (erf) GELU.

The XNNPACK partitioner takes `aten.gelu` whatever its `approximate` argument, and the
serializer writes both modes as `XNNGelu`, so the tanh approximation asked for is never
computed: at x = -2.7 the delegate returns -0.009340 (exact GELU) where eager returns
-0.008867 (tanh GELU), 4.7e-4 apart, far outside float32's tolerance. The lane's
emulation (fuzz/backends/exir/emulate.py, "gelu-tanh-as-exact") runs the exported program
with tanh GELU computed as exact GELU and finds the delegate's output equal to it: the fact
`matches_eager_with`. Found by probing each catalogue op alone on the XNNPACK lane
(2026-12-07).
"""

import torch


def program(x):
    return (torch.nn.functional.gelu(x, approximate="tanh"),)


def calls():
    return [(torch.linspace(-3.0, 3.0, 7),), (torch.tensor([-2.7, -1.5, 0.5, 2.0]),)]


LANES = ("xnnpack",)
DIMS = {"x": {0: (2, 16)}}
EXPECT = ("xnnpack.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies it (fuzz/known.py): the delegate's result is what exact GELU computes.
MATCHES = (
    {"kind": "xnnpack.runtime-result", "facts": {"matches_eager_with": "gelu-tanh-as-exact"}},
)
# Searched the issue index for "XNNPACK gelu approximate tanh": pytorch/executorch#22851
# ("XNNPACK: Route tanh GELU to approxgelu", merged 2026-09-15) describes exactly this
# ("nn.GELU(approximate="tanh") executes exact GELU after delegation") and fixes it with a
# new XNNApproxGelu node; models must be re-exported and the runtime updated.
UPSTREAM = "https://github.com/pytorch/executorch/pull/22851"
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "XNNPACK delegate computes exact GELU for gelu(approximate='tanh')"
DESCRIBE = """
`torch.nn.functional.gelu(x, approximate="tanh")` lowered with
`to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])` and run on the
runtime returns the exact (erf) GELU: at x = -2.7 it returns -0.009340 where eager returns
-0.008867. The partitioner accepts `aten.gelu` whatever its `approximate` argument and the
serializer writes both modes as `XNNGelu`. pytorch/executorch#22851 routes tanh GELU to
XNNPACK's approxgelu.
"""
