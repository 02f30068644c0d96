"""float64 remainder of two tensors (`%`, the Tensor overload), broadcast."""

import torch


def program(a, b):
    return (a % b,)


def calls():
    a = torch.tensor([[-99999999.7], [5.5]], dtype=torch.float64)
    return [(a, torch.tensor([1e8, 3.0], dtype=torch.float64))]


LANES = ("exir",)
