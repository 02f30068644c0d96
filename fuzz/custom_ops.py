"""The harness's own data-dependent custom ops, registered with `torch.library`.

Each op's output size depends on the *values* of its input, so under `torch.export` its
fake kernel returns an unbacked symbolic size (`ctx.new_dynamic_size()`), with the bound
stated by `torch._check`. Every functional op has an `.out` overload (keyword-only
`out`, resized by the kernel) so that ExecuTorch's ToOutVarPass can memory-plan it.

Importing this module registers the ops once per process under the `fuzz` namespace:
`torch.ops.fuzz.positive(x)`, etc. The op *descriptions* used by the generator live in
`fuzz.ops.data_dependent`; this module only defines kernels.
"""

from __future__ import annotations

import torch

NAMESPACE = "fuzz"

_lib = torch.library.Library(NAMESPACE, "DEF")  # noqa: F841  (kept alive: owns the definitions)

# Schemas. Functional overload first, then `.out` with keyword-only, aliased outputs.
_SCHEMAS = {
    # The strictly positive entries of x, flattened: size u in [0, numel(x)].
    "positive": [
        "positive(Tensor x) -> Tensor",
        "positive.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
    ],
    # At most k of the strictly positive entries of x: size u in [0, k] (bound by k).
    "positive_head": [
        "positive_head(Tensor x, int k) -> Tensor",
        "positive_head.out(Tensor x, int k, *, Tensor(a!) out) -> Tensor(a!)",
    ],
    # Two outputs: the positive entries and the non-positive ones, each of unbacked size.
    "split_sign": [
        "split_sign(Tensor x) -> (Tensor, Tensor)",
        "split_sign.out(Tensor x, *, Tensor(a!) pos, Tensor(b!) nonpos)"
        " -> (Tensor(a!), Tensor(b!))",
    ],
}
for _defs in _SCHEMAS.values():
    for _schema in _defs:
        _lib.define(_schema)


def _positive(x: torch.Tensor) -> torch.Tensor:
    flat = x.reshape(-1)
    return flat[flat > 0].clone()


def _positive_head(x: torch.Tensor, k: int) -> torch.Tensor:
    return _positive(x)[:k].clone()


def _split_sign(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    flat = x.reshape(-1)
    return flat[flat > 0].clone(), flat[~(flat > 0)].clone()


def _into(out: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    out.resize_(value.shape)
    out.copy_(value)
    return out


_IMPL = "CompositeExplicitAutograd"
torch.library.impl(f"{NAMESPACE}::positive", _IMPL, lib=_lib)(_positive)
torch.library.impl(f"{NAMESPACE}::positive_head", _IMPL, lib=_lib)(_positive_head)
torch.library.impl(f"{NAMESPACE}::split_sign", _IMPL, lib=_lib)(_split_sign)


@torch.library.impl(f"{NAMESPACE}::positive.out", _IMPL, lib=_lib)
def _positive_out(x, *, out):
    return _into(out, _positive(x))


@torch.library.impl(f"{NAMESPACE}::positive_head.out", _IMPL, lib=_lib)
def _positive_head_out(x, k, *, out):
    return _into(out, _positive_head(x, k))


@torch.library.impl(f"{NAMESPACE}::split_sign.out", _IMPL, lib=_lib)
def _split_sign_out(x, *, pos, nonpos):
    p, n = _split_sign(x)
    return _into(pos, p), _into(nonpos, n)


# Fake kernels: the output size is a fresh unbacked symbol with a stated bound.
def _dynamic_size(upper):
    ctx = torch.library.get_ctx()
    n = ctx.new_dynamic_size()
    torch._check(n <= upper)
    return n


@torch.library.register_fake(f"{NAMESPACE}::positive", lib=_lib)
def _positive_fake(x):
    return x.new_empty((_dynamic_size(x.numel()),))


@torch.library.register_fake(f"{NAMESPACE}::positive_head", lib=_lib)
def _positive_head_fake(x, k):
    return x.new_empty((_dynamic_size(k),))


@torch.library.register_fake(f"{NAMESPACE}::split_sign", lib=_lib)
def _split_sign_fake(x):
    return x.new_empty((_dynamic_size(x.numel()),)), x.new_empty((_dynamic_size(x.numel()),))


@torch.library.register_fake(f"{NAMESPACE}::positive.out", lib=_lib)
def _positive_out_fake(x, *, out):
    return out


@torch.library.register_fake(f"{NAMESPACE}::positive_head.out", lib=_lib)
def _positive_head_out_fake(x, k, *, out):
    return out


@torch.library.register_fake(f"{NAMESPACE}::split_sign.out", lib=_lib)
def _split_sign_out_fake(x, *, pos, nonpos):
    return pos, nonpos
