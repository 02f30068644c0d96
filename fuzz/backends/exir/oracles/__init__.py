"""The EXIR lane's own oracles: pure functions from planned programs and recorded facts
to `Divergence` records; the lane (checks.py) decides when to call them.

plan.py      exir.spec-meta, exir.bound-loss, exir.under-allocation
overlap.py   exir.overlap (ExecuTorch's Verifier and our interval check, every level)
variance.py  exir.pipeline-variance (the plan must not depend on where SpecPropPass runs)
aliasing.py  exir.aliasing (alias classes against the dataflow and eager sharing)

Facts about graphs they share with the lane are in ../graph.py.
"""
