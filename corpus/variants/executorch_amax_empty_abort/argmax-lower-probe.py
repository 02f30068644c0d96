"""The same for argmax: the lower probe (1 column) leaves tensor_split's first piece empty
(the fault-benchmark night's exir_crash_c11c0836, shrunk by hand).
"""

import torch


def program(x):
    v, w = torch.tensor_split(x, 2, 1)
    return (torch.argmax(v), w * 2.0)


def calls():
    return [(torch.randn(3, 2),), (torch.randn(4, 3),)]


DIMS = {"x": {0: (3, 5), 1: (2, 3)}}
LANES = ("exir",)
ISOLATE = True
