"""Backends ("lanes"): each runs a case's calls its own way and returns a `LaneReport`.

eager.py     the reference
thunder.py   thunder.jit(cache="symbolic values"), plus the default cache as control
exir/        torch.export -> to_edge -> to_executorch -> runtime (a package: lane.py first)
registry.py  lane names -> lane classes (and how to add a lane)
"""
