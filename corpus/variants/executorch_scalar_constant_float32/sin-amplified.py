"""A float64 tensor times a Python float, within tolerance, amplified by sin (the nightly's
`torch.sin(x * math.exp(5 / 4))`): the edge program departs at sin.
"""

import torch


def program(x):
    return (torch.sin(x * 3.4903429574618414),)


def calls():
    return [(torch.tensor([300.0, 1.0], dtype=torch.float64),)]


LANES = ("exir",)
