"""The campaign's form: every call is fine; the lower contract probe (s0 = 1, below the
exported minimum 2) makes the conv1d output length `(s0 - 2) // 2 + 1` zero and `1 % 0`
kills the runtime (exir_crash_ae0327d7).
"""

import torch
import torch.nn.functional as F


def program(x, n):
    w = (torch.arange(6, dtype=x.dtype) / 6 - 0.5).reshape(3, 1, 2)
    v = F.conv1d(x[None, None], w, stride=2).permute(2, 0, 1)
    return (v[n % v.shape[0]],)


def calls():
    return [(torch.randn(3, dtype=torch.bfloat16), 1)]


DIMS = {"x": {0: (2, 5)}}
LANES = ("exir",)
ISOLATE = True
