"""As the default night at ccaf204 found it: a cond over the specialized value fails
to_executorch's replay check, with backed sizes.
"""

import torch


def program(x0):
    v3 = x0 * 2
    v5 = torch.cond(v3.shape[1] > 5, lambda x: -x, lambda x: torch.sin(x), (v3,))
    return (v5, v3.new_empty(v3.shape).fill_(1.0))


def calls():
    return [(torch.randn(3, 6, 6, 6),)]


DIMS = {"x0": {0: (3, 6), 1: (3, 6), 2: (3, 6), 3: (3, 6)}}
LANES = ("exir",)
