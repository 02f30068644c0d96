"""The eval dropout's result returned, its input then written through another view: eager's
output is the new values, the exported program's the old (fault-benchmark night, seed 4,
shrunk).
"""

import torch
import torch.nn.functional as F


def program(x):
    v = F.dropout(x, p=0.9, training=False)
    x.reshape(-1).mul_(1.5)
    return (v,)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(5, 4),)]


LANES = ("exir",)
