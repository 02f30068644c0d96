"""Only a smaller size after the example: nothing is under-allocated, the runtime's execute
fails (error 0x12). The fault benchmark's seed-1 EXIR baseline filed this as new while
the pattern knew only the set_inputs message.
"""

import torch


def program(x0, n):
    v = torch.neg(x0).new_empty((x0.shape[0] + 1, 2)).fill_(1.5)
    return (v * n,)


def calls():
    return [(torch.randn(3), 0), (torch.randn(2), 0)]


DIMS = {"x0": {0: (2, 3)}}
LANES = ("exir",)
