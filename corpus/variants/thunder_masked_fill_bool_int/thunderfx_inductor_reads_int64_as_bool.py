"""Under ThunderFX the int64 result feeds a part ThunderFX gave to Inductor (`roll`, which
Thunder does not take). That part was compiled from Dynamo's fake value of the result,
a bool tensor, so it reads the first bytes of the int64 buffer as bools: the values
differ, the dtype does not (a default night, seed 2, 2026-12-07: `[[T, F], [F, T],
[T, T]]` rolled by 1 gave `[[F, F], [T, F], [F, F]]`; with the masked_fill fixed, or a
float value, the program agrees with eager)."""

import torch


def program(x, n):
    return (torch.roll(x.masked_fill(x, 1), n, 0),)


def calls():
    return [(torch.tensor([[True, False], [False, True], [True, True]]), 1)]


LANES = ("thunderfx",)
