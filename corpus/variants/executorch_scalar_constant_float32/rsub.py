"""A number minus a reduction (rsub, sub.Tensor in the edge program), next to a float32
output.
"""

import torch


def program(x, y):
    return (10.1 - x.mean(0), y + 1)


def calls():
    x = torch.tensor([[10.1, 0.1], [10.1, 0.3]], dtype=torch.float64)
    return [(x, torch.ones(2))]


LANES = ("exir",)
