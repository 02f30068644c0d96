"""The EXIR lane: torch.export -> to_edge -> to_executorch (memory planned) -> runtime.

Read in this order:

  lane.py      ExirLane: build once, then the named checks in order (start here)
  checks.py    each check: gather facts, ask a judgement in oracles/
  inputs.py    what the program is exported for, fed and compared with
  pipeline.py  export, to_edge, to_executorch with the spec probe
  mirror.py    to_executorch's passes re-run with an extra SpecPropPass (variance), and
               the naive plan, from one shared run of the passes
  mapping.py   planned tensors -> the ATen (or edge) nodes whose values they hold
  interpret.py running the ATen or edge program node by node with real tensors
  runtime.py   loading and running the .pte with the pip runtime
  contract.py  which calls are inside the exported contract; probes just outside it
  origin.py    where the edge program first departs from the ATen program on a call
               (the `origin` and `dtype_origin` facts)
  runtime_origin.py  where the runtime's own traced run (ETDump) first departs from the
               edge program on a call, when the edge program is right (`runtime_origin`)
  emulate.py   runtime kernel semantics that differ from ATen's, as eager emulations: is
               a wrong runtime result what one of them computes
  edge_run.py  the edge program run in eager, for calls the runtime gives no result for
               (`exir.edge-result`)
  kernels/     runtime kernels of ours for the harness's `fuzz::` custom ops (C++, built
               once against the wheel's libexecutorch.so)
  speedups.py  torch.export's registry bookkeeping without its redundant passes (same
               graphs, a third less to_edge time)
  kinds.py     the lane's divergence kinds (data, no torch: the core reads them before
               the lane is imported, so the lane class is loaded on first use)

The judgements are pure functions in oracles/ (plan, overlap, emission, variance, aliasing; and
fuzz.oracles.results.compare_results, shared with Thunder); facts about ExecuTorch graphs
that both the lane and its judgements read are in graph.py (not an oracle).
"""

from __future__ import annotations

__all__ = ["ExirLane"]


def __getattr__(name: str):
    """`ExirLane` on first use (PEP 562): importing the package, as importing its torch-free
    kinds module does, imports no torch."""
    if name == "ExirLane":
        from fuzz.backends.exir.lane import ExirLane

        return ExirLane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
