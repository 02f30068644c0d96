"""Every call is fine; the lower contract probe (rows 1, below the exported 2) makes
`x[1:]` empty and the runtime, which accepts it, aborts in amin's reduction plan (its
log says so; the probe's input itself is not empty).
"""

import torch


def program(x):
    return (torch.amin(x[1:], dim=(0, 1), keepdim=True) * 2.0,)


def calls():
    return [(torch.randn(3, 4),), (torch.randn(5, 4),)]


DIMS = {"x": {0: (2, 6)}}
LANES = ("exir",)
ISOLATE = True
