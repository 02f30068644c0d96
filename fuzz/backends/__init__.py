"""Backends ("lanes"): each runs a case's calls its own way and returns a `LaneReport`.

eager.py     the reference
thunder/     thunder.jit(cache="symbolic values"), plus the default cache as control (a
             package: lane.py first)
exir/        torch.export -> to_edge -> to_executorch -> runtime (a package: lane.py first)

Each lane is one package: its lane class, its speedups, its own oracles (oracles/) and
what else only it uses; oracles every lane shares are in fuzz/oracles/.
registry.py  lane names -> lane classes (and how to add a lane)
"""
