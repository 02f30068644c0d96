"""A flattened diagonal of two dynamic dims feeding bincount: the exported graph has no
sym_min, `to_edge`'s decomposition adds it (the XNNPACK lane's first 1,000-program
campaign, 2026-12-07, seed 2026, reduced by hand; the same on the EXIR lane)."""

import torch


def program(x):
    return (torch.bincount(torch.diagonal(x, 0, 1, 2).reshape(-1).long().abs().clamp(max=7)),)


def calls():
    return [(torch.randn(3, 4, 2, 5),), (torch.randn(3, 4, 2, 5),)]


LANES = ("exir",)
DIMS = {"x": {0: (2, 4), 1: (0, 4), 2: (1, 3), 3: (3, 6)}}
