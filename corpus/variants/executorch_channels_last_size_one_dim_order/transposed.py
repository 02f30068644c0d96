"""A transposed operand (not channels-last) with a size-1 channel: the clone's output
strides tie on C and W (the fault-benchmark night's form was an expand, shrunk).
"""

import torch


def program(x):
    return (x.transpose(2, 3).contiguous(memory_format=torch.channels_last),)


def calls():
    return [(torch.randn(2, 1, 3, 4),)]


LANES = ("exir",)
