"""`//` of a constant by an unbacked size that a dropped torch._check kept nonzero:
executorch_prim::floordiv.Scalar(3, 0) at call 1, where eager's check raises.
"""

import torch


def program(x, y):
    u = x.nonzero().shape[0]
    torch._check(u > 0)
    return (y[3 // u] * 2,)


def calls():
    return [
        (torch.tensor([1.0, 1.0, 0.0]), torch.arange(4.0)),
        (torch.zeros(3), torch.arange(4.0)),
    ]


LANES = ("exir",)
ISOLATE = True
