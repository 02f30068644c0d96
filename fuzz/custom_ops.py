"""The harness's own custom ops, registered with `torch.library`.

Two groups, both under the `fuzz` namespace (`torch.ops.fuzz.*`):

* Data-dependent ops (`positive`, `positive_head`, `split_sign`): the output size depends
  on the *values* of the input, so under `torch.export` the fake kernel returns an
  unbacked symbolic size (`ctx.new_dynamic_size()`), with the bound stated by
  `torch._check`. Defined with `Library.define` + `impl`. Thunder cannot trace them
  (EXIR-only in the catalogue).
* Shape ops (`head`, `bmul`), defined with `torch.library.custom_op`, so that Thunder can
  run them (`THUNDER_OPS`, registered by the Thunder lane with
  `thunder.torch.custom_op._register_custom_op` and run by `custom_op_ex`): `head(x, n)`
  is the first n elements of x, zero-padded (its size comes from a number or a shape),
  `bmul(a, b)` is `a * b` with broadcasting (its size is the broadcast shape).
  The ExecuTorch runtime runs them through kernels of ours (fuzz/backends/exir/kernels).

Every functional op has an `.out` overload (keyword-only `out`, resized by the kernel) so
that ExecuTorch's ToOutVarPass can memory-plan it. `torch.library.custom_op` cannot
declare one, so the `.out` overloads of `head` and `bmul` are defined afterwards on the
same op name through the namespace's library, with the functional schema's argument
types (`SymInt n`, which is what `custom_op` makes of `int`: the out-variant lookup
compares the two schemas).

Importing this module registers the ops once per process. The op *descriptions* used by
the generator live in `fuzz.ops.data_dependent` and `fuzz.ops.custom`; this module only
defines kernels.
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


# ---- shape ops, Thunder-capable (torch.library.custom_op) --------------------------------


@torch.library.custom_op(f"{NAMESPACE}::head", mutates_args=())
def head(x: torch.Tensor, n: int) -> torch.Tensor:
    """The first n elements of x, flattened, zero-padded to exactly n elements. (Not
    `min(n, numel)` elements: a `torch.sym_min` size fails ExecuTorch's edge verifier,
    corpus_new/executorch_sym_min_edge_verifier.py.)"""
    flat = x.reshape(-1)[:n]
    out = x.new_zeros((n,))
    out[: flat.numel()] = flat
    return out


@head.register_fake
def _head_fake(x, n):
    return x.new_empty((n,))


@torch.library.custom_op(f"{NAMESPACE}::bmul", mutates_args=())
def bmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`a * b`, broadcasting, computed in `torch.promote_types(a.dtype, b.dtype)`: the dtype
    its fake kernel and the generator's rule give. (`a * b` itself would be float16 for a
    float16 tensor times a 0-dim float32 one, which no fake kernel of promote_types says:
    the runtime kernel, which writes the planned dtype, would then disagree with eager.)"""
    dtype = torch.promote_types(a.dtype, b.dtype)
    # Contiguous, as its fake kernel says: `a * b` of transposed operands keeps their
    # layout, and a compiler that trusts the fake strides (Inductor's size/stride asserts
    # under torch.compile) would refuse the op's real output.
    return (a.to(dtype) * b.to(dtype)).contiguous()


@bmul.register_fake
def _bmul_fake(a, b):
    shape = torch.broadcast_shapes(a.shape, b.shape)
    return a.new_empty(shape, dtype=torch.promote_types(a.dtype, b.dtype))


_lib.define("head.out(Tensor x, SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
_lib.define("bmul.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)")


@torch.library.impl(f"{NAMESPACE}::head.out", _IMPL, lib=_lib)
def _head_out(x, n, *, out):
    return _into(out, head(x, n))


@torch.library.impl(f"{NAMESPACE}::bmul.out", _IMPL, lib=_lib)
def _bmul_out(a, b, *, out):
    return _into(out, bmul(a, b))


@torch.library.register_fake(f"{NAMESPACE}::head.out", lib=_lib)
def _head_out_fake(x, n, *, out):
    return out


@torch.library.register_fake(f"{NAMESPACE}::bmul.out", lib=_lib)
def _bmul_out_fake(a, b, *, out):
    return out


# The ops the Thunder lane registers with Thunder (CustomOpDef objects).
THUNDER_OPS = (head, bmul)
