"""log_softmax over a dim whose trailing dim is empty, after an op (as generated)."""

import torch
import torch.nn.functional as F


def program(x):
    return (F.log_softmax(x * 2.0, dim=-3),)


def calls():
    return [(torch.randn(2, 3, 0),)]


LANES = ("exir",)
ISOLATE = True
