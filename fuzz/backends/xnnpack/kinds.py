"""The XNNPACK lane's divergence kinds (data only, torch-free: see
fuzz/backends/exir/kinds.py for why a lane's kinds live apart from the lane)."""

from __future__ import annotations

from fuzz.divergence import register_kinds

# torch.export -> to_edge_transform_and_lower(XnnpackPartitioner) -> to_executorch -> runtime
KINDS = {
    "xnnpack.runtime-result": (
        "the ExecuTorch runtime with the XNNPACK delegate returns outputs (or writes inputs) "
        "that differ from eager"
    ),
    "xnnpack.crash": (
        "lowering with the XNNPACK partitioner, or running the delegated program, raised where "
        "eager did not"
    ),
}

register_kinds("xnnpack", KINDS)
