"""A backed dim: the stride sort's guard specializes it, silently. `x` is empty at the
export example (dim 0 is 0), its last dim 4 there, dynamic in [3, 8]; to_executorch's
SpecPropPass sorts the strides of `F.pad(x, (0, 1), mode="reflect")`'s index tensors and
guards `s53 = 4` (range refined to a singleton): the pad's `arange` is planned for 5
elements, and a call with a last dim of 6 needs 7."""

import torch
import torch.nn.functional as F


def program(x):
    return (F.pad(x, (0, 1), mode="reflect"), x[:, :, 3:])


def calls():
    return [(torch.randn(0, 5, 4),), (torch.randn(0, 3, 6),)]


LANES = ("exir",)
DIMS = {"x": {0: (0, 5), 1: (1, 5), 2: (3, 8)}}
