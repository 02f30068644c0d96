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
    "xnnpack.overlap": (
        "the memory plan of the part the delegate does not take gives two tensors live at "
        "the same time the same bytes (ExecuTorch's Verifier, or the lifetimes the harness "
        "computes from the graph)"
    ),
}

# Export, `to_edge` (inside to_edge_transform_and_lower), `to_executorch` (its memory
# planning included) and the portable kernels of the part the delegate does not take are
# the EXIR lane's code: its registered bugs there are known here, at the same stage (the
# lane names a failure inside the edge conversion "to_edge").
SAME_BUGS_AS = {
    "xnnpack.crash": "exir.crash",
    "xnnpack.runtime-result": "exir.runtime-result",
    "xnnpack.overlap": "exir.overlap",
}

register_kinds("xnnpack", KINDS, SAME_BUGS_AS)
