"""As found: pieces of the contiguous einsum result next to a row of the result."""

import torch


def program(x, n):
    v = torch.einsum("i,j->ij", x, x)
    w = v.contiguous().view(*v.shape[:-2], -1)
    a, b, c = torch.tensor_split(w, 3, 0)
    return (v[n % v.shape[0]], a, b, torch.neg(c))


def calls():
    return [(torch.randn(2), 0)]


LANES = ("thunder",)
