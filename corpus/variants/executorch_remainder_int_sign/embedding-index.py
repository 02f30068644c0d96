"""A negative remainder as an embedding index: the generator's old embedding indices,
`remainder(idx.long(), n)` of a float operand with negative values. The runtime's
embedding kernel fails its index check (error 0x12), an exir.crash, not a wrong value;
the crash forms read which check failed in the runtime's log.
"""

import torch


def program(x, w):
    return (torch.nn.functional.embedding(torch.remainder(x.long(), w.shape[0]), w),)


def calls():
    return [(torch.tensor([1.5, -1.2, 2.0, -3.7]), torch.randn(4, 3))]


LANES = ("exir",)
