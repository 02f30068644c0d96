"""Template text: the harness's custom ops (fuzz/custom_ops.py) that a case calls, defined
in the script itself under the same `fuzz` operator namespace, so the program's source
stays as it is and the script imports nothing of the harness. Only the ops the program
names (`torch.ops.fuzz.NAME`) are written.
"""

from __future__ import annotations

PRELUDE = """
# ---- the custom operators the program calls (torch.library) ------------------------
# A data-dependent op's fake kernel gives its output a fresh unbacked size with the bound
# stated by torch._check; every op has an `.out` variant so ExecuTorch can plan it.

_lib = torch.library.Library("fuzz", "DEF")


def _into(out, value):
    out.resize_(value.shape)
    out.copy_(value)
    return out


def _dynamic_size(upper):
    n = torch.library.get_ctx().new_dynamic_size()
    torch._check(n <= upper)
    return n
"""

OPS = {
    "positive": """
# positive(x): the strictly positive entries of x, flattened (size in [0, x.numel()]).
_lib.define("positive(Tensor x) -> Tensor")
_lib.define("positive.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")


def _positive(x):
    flat = x.reshape(-1)
    return flat[flat > 0].clone()


torch.library.impl("fuzz::positive", "CompositeExplicitAutograd", lib=_lib)(_positive)
torch.library.impl("fuzz::positive.out", "CompositeExplicitAutograd", lib=_lib)(
    lambda x, *, out: _into(out, _positive(x))
)
torch.library.register_fake("fuzz::positive", lib=_lib)(
    lambda x: x.new_empty((_dynamic_size(x.numel()),))
)
torch.library.register_fake("fuzz::positive.out", lib=_lib)(lambda x, *, out: out)
""",
    "positive_head": """
# positive_head(x, k): at most k of the strictly positive entries of x (size in [0, k]).
_lib.define("positive_head(Tensor x, int k) -> Tensor")
_lib.define("positive_head.out(Tensor x, int k, *, Tensor(a!) out) -> Tensor(a!)")


def _positive_head(x, k):
    flat = x.reshape(-1)
    return flat[flat > 0][:k].clone()


torch.library.impl("fuzz::positive_head", "CompositeExplicitAutograd", lib=_lib)(_positive_head)
torch.library.impl("fuzz::positive_head.out", "CompositeExplicitAutograd", lib=_lib)(
    lambda x, k, *, out: _into(out, _positive_head(x, k))
)
torch.library.register_fake("fuzz::positive_head", lib=_lib)(
    lambda x, k: x.new_empty((_dynamic_size(k),))
)
torch.library.register_fake("fuzz::positive_head.out", lib=_lib)(lambda x, k, *, out: out)
""",
    "split_sign": """
# split_sign(x): the positive entries of x and the others, each of a data-dependent size.
_lib.define("split_sign(Tensor x) -> (Tensor, Tensor)")
_lib.define(
    "split_sign.out(Tensor x, *, Tensor(a!) pos, Tensor(b!) nonpos) -> (Tensor(a!), Tensor(b!))"
)


def _split_sign(x):
    flat = x.reshape(-1)
    return flat[flat > 0].clone(), flat[~(flat > 0)].clone()


def _split_sign_out(x, *, pos, nonpos):
    p, n = _split_sign(x)
    return _into(pos, p), _into(nonpos, n)


torch.library.impl("fuzz::split_sign", "CompositeExplicitAutograd", lib=_lib)(_split_sign)
torch.library.impl("fuzz::split_sign.out", "CompositeExplicitAutograd", lib=_lib)(_split_sign_out)
torch.library.register_fake("fuzz::split_sign", lib=_lib)(
    lambda x: (
        x.new_empty((_dynamic_size(x.numel()),)),
        x.new_empty((_dynamic_size(x.numel()),)),
    )
)
torch.library.register_fake("fuzz::split_sign.out", lib=_lib)(
    lambda x, *, pos, nonpos: (pos, nonpos)
)
""",
    "head": """
# head(x, n): the first n elements of x, flattened, zero-padded to exactly n.
@torch.library.custom_op("fuzz::head", mutates_args=())
def head(x: torch.Tensor, n: int) -> torch.Tensor:
    flat = x.reshape(-1)[:n]
    out = x.new_zeros((n,))
    out[: flat.numel()] = flat
    return out


head.register_fake(lambda x, n: x.new_empty((n,)))
_lib.define("head.out(Tensor x, SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
torch.library.impl("fuzz::head.out", "CompositeExplicitAutograd", lib=_lib)(
    lambda x, n, *, out: _into(out, head(x, n))
)
torch.library.register_fake("fuzz::head.out", lib=_lib)(lambda x, n, *, out: out)
""",
    "bmul": """
# bmul(a, b): a * b, broadcasting, in torch.promote_types(a.dtype, b.dtype).
@torch.library.custom_op("fuzz::bmul", mutates_args=())
def bmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    dtype = torch.promote_types(a.dtype, b.dtype)
    return a.to(dtype) * b.to(dtype)


bmul.register_fake(
    lambda a, b: a.new_empty(
        torch.broadcast_shapes(a.shape, b.shape), dtype=torch.promote_types(a.dtype, b.dtype)
    )
)
_lib.define("bmul.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)")
torch.library.impl("fuzz::bmul.out", "CompositeExplicitAutograd", lib=_lib)(
    lambda a, b, *, out: _into(out, bmul(a, b))
)
torch.library.register_fake("fuzz::bmul.out", lib=_lib)(lambda a, b, *, out: out)
""",
}
