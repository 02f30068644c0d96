"""A reduction of nonzero's (n, ndim) result: the reduction kernels' own dim-order check
fails (a fixes-on night of the tenth session, filed as new while the pattern asked for
the elementwise ops' check).
"""

import torch


def program(x):
    return (torch.nonzero(x.reshape(-1) > 0).sum(dim=1).float(),)


def calls():
    return [(torch.tensor([[1.0, -2.0], [3.0, 4.0]]),)]


LANES = ("exir",)
