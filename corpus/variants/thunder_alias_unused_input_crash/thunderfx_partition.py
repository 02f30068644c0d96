"""Under ThunderFX: a partition's inputs include two disjoint views of one storage (`x1`,
`x2`) and the line raises inside the partition's `thunder.jit` (the ThunderFX lane's
first 1,000-program campaign, 2026-12-07, seed 2026; not reduced further: smaller
programs split differently and pass)."""

import math

import torch


def program(x0, x1, x2, x3, x4):
    v5 = torch.bitwise_right_shift(x0, x0.abs().clamp(max=3))
    v6 = x2.transpose(0, 0)
    v7 = torch.bitwise_right_shift(x2.long(), x1.long().abs().clamp(max=3))
    v8 = torch.empty_like(v6).copy_(v6 * 2)
    v9 = torch.ops.fuzz.bmul(v8, v8)
    v10 = (v7 > 0) * v7
    v11 = torch.logsumexp(v7, dim=-1, keepdim=False)
    v12 = torch.bitwise_and((v11 > 0), v5)
    v13 = v11.clamp(max=x3)
    v14 = v9 * math.log1p(x4)
    return (v10, v12, v13, v14)


def calls():
    base = torch.randint(0, 2, (12,)).bool()
    return [(torch.randint(-4, 5, (6, 4, 3)), base[:6], base[6:], 3, 1)]


LANES = ("thunderfx",)
