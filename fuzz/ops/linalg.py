"""The matmul family beyond reductions.py's matmul/gram (bmm, baddbmm, addmm, linear with
and without bias, einsum), embedding, and the spatial ops conv1d/conv2d and interpolate.

Every op here takes float operands of one dtype. The batched products also take 2-D
operands, as the batched outer product (`bmm(a.unsqueeze(2), b.unsqueeze(1))`) or the
batched dot product (`bmm(a.unsqueeze(1), b.unsqueeze(2))`), so that the ordinary 2-D
tensors of generated programs reach them. Empty batch and contraction dims are defined
(zeros) and allowed.

The spatial ops flatten the operand's leading dims into the batch and add one channel,
so the weights have static channel counts (built in the template from `torch.arange`,
a fixed-shape tensor) while the batch and spatial sizes change between calls. A kernel
is never larger than the smallest size its spatial dim takes at any call, and interpolate
only meets operands that are never empty (eager refuses an empty spatial dim, Thunder an
empty batch too). Interpolation
scales are 2 or 4 (exact in binary), so the nearest source index is never a rounding
question.

embedding's indices are in range at every call: `remainder(idx.long().abs(),
num_embeddings)` of an integer or bool operand (exact values; `abs` because ExecuTorch's
integer remainder takes the dividend's sign, corpus/executorch_remainder_int_sign.py, and
a negative index would make every such embedding a crash of that registered bug rather
than a test of embedding), or `remainder(arange(n), num_embeddings)`
beside a float one (whose values a compiler may round differently; `%` is not used:
Thunder 0.2.6 has no `TensorProxy.__mod__`, `t % 3` raises "TypeError: 'NoneType'
object is not callable"); the weight's first dim is never empty.
"""

from __future__ import annotations

import sympy

from fuzz.ops.spec import (
    EXIR_ONLY,
    F_IMPORT,
    Built,
    OpSpec,
    TensorType,
    broadcast_decisions,
    broadcast_shape,
    float_typed,
    op,
    pairs,
    tensors,
    unary,
)

ONE = sympy.Integer(1)


def _floats(a, b, syms):
    return float_typed(a, syms) and a.dtype == b.dtype


# ---- batched products --------------------------------------------------------------------


def _batched_forms(a, b):
    """form -> (operand 0 as a batch of matrices, operand 1 likewise, the product's shape)."""
    forms = {}
    if a.rank == 3 and b.rank == 3 and a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]:
        forms["direct"] = ("{0}", "{1}", (a.shape[0], a.shape[1], b.shape[2]))
    if a.rank == 2 and b.rank == 2 and a.shape[0] == b.shape[0]:
        outer = (a.shape[0], a.shape[1], b.shape[1])
        forms["outer"] = ("{0}.unsqueeze(2)", "{1}.unsqueeze(1)", outer)
        if a.shape == b.shape:
            forms["dot"] = ("{0}.unsqueeze(1)", "{1}.unsqueeze(2)", (a.shape[0], ONE, ONE))
    return forms


def _bmm_ok(a, b, syms):
    return _floats(a, b, syms) and bool(_batched_forms(a, b))


def _bmm(types, syms, pick):
    a, b = types
    forms = _batched_forms(a, b)
    left, right, shape = forms[pick.pick(sorted(forms))]
    return Built({"a": left, "b": right}, (TensorType(shape, a.dtype),))


def _fits(c, shape, syms):
    """c broadcasts to `shape` (and not the other way) at every call."""
    return c.rank <= len(shape) and broadcast_shape(c.shape, shape, syms) == tuple(shape)


def _with_addend(product_shapes):
    """Operands (a, b, c): a valid product of a and b, and c that broadcasts to it."""

    def operands(values, syms):
        ts = tensors(values)
        out = []
        for i, a in ts:
            for j, b in ts:
                if not _floats(a, b, syms):
                    continue
                shapes = product_shapes(a, b)
                for k, c in ts:
                    if c.dtype == a.dtype and any(_fits(c, s, syms) for s in shapes):
                        out.append((i, j, k))
        return out

    return operands


def _scales(pick):
    return {"beta": pick.pick(("1", "0.5")), "alpha": pick.pick(("1", "2"))}


def _baddbmm(types, syms, pick):
    a, b, c = types
    forms = _batched_forms(a, b)
    fitting = sorted(f for f, (_, _, shape) in forms.items() if _fits(c, shape, syms))
    left, right, shape = forms[pick.pick(fitting)]
    attrs = {"a": left, "b": right} | _scales(pick)
    return Built(attrs, (TensorType(shape, a.dtype),), broadcast_decisions(c.shape, shape, syms))


def _mm_shape(a, b):
    if a.rank == 2 and b.rank == 2 and a.shape[1] == b.shape[0]:
        return [(a.shape[0], b.shape[1])]
    return []


def _addmm(types, syms, pick):
    a, b, c = types
    (shape,) = _mm_shape(a, b)
    out = TensorType(shape, a.dtype)
    return Built(_scales(pick), (out,), broadcast_decisions(c.shape, shape, syms))


# ---- linear ------------------------------------------------------------------------------


def _linear_ok(x, w, syms):
    return _floats(x, w, syms) and x.rank >= 1 and w.rank == 2 and x.shape[-1] == w.shape[1]


def _linear(types, syms, pick):
    x, w = types[:2]
    return Built({}, (TensorType(x.shape[:-1] + (w.shape[0],), x.dtype),))


def _bias_source(bias, out, syms):
    """How a bias of exactly (out,) is read from `bias`: itself, or the first row of a
    (k, out) tensor with k never 0 (Thunder 0.2.6 refuses the broadcastable (1,) bias that
    eager accepts: "Expected bias.shape=(1,) to have an innermost dimension of length 3,
    the same length as the outermost dimension of w.shape"; torch documents (out,))."""
    if bias.shape == (out,):
        return "{2}"
    if bias.rank == 2 and bias.shape[1] == out and syms.at_least_one(bias.shape[0]):
        return "{2}[0]"
    return None


def _linear_bias_operands(values, syms):
    ts = tensors(values)
    return [
        (i, j, k)
        for i, x in ts
        for j, w in ts
        if _linear_ok(x, w, syms)
        for k, bias in ts
        if bias.dtype == x.dtype and _bias_source(bias, w.shape[0], syms)
    ]


def _linear_bias(types, syms, pick):
    x, w, bias = types
    built = _linear(types, syms, pick)
    return Built({"bias": _bias_source(bias, w.shape[0], syms)}, built.outputs)


# ---- einsum ------------------------------------------------------------------------------


def _contractions(a, b):
    out = {}
    if a.rank == 2 and b.rank == 2 and a.shape[1] == b.shape[0]:
        out["ij,jk->ik"] = (a.shape[0], b.shape[1])
    if a.rank == 2 and b.rank == 2 and a.shape[1] == b.shape[1]:
        out["ij,kj->ik"] = (a.shape[0], b.shape[0])
    if a.rank == 3 and b.rank == 3 and a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]:
        out["bij,bjk->bik"] = (a.shape[0], a.shape[1], b.shape[2])
    return out


def _reductions(a, b):
    out = {}
    if a.rank == 1 and b.rank == 1:
        out["i,j->ij"] = (a.shape[0], b.shape[0])
    if a.rank == 2 and a.shape == b.shape:
        out |= {"ij,ij->i": (a.shape[0],), "ij,ij->j": (a.shape[1],), "ij,ij->": ()}
    return out


def _einsum(equations):
    def accept(a, b, syms):
        return _floats(a, b, syms) and bool(equations(a, b))

    def build(types, syms, pick):
        a, b = types
        options = equations(a, b)
        eq = pick.pick(sorted(options))
        return Built({"eq": repr(eq)}, (TensorType(options[eq], a.dtype),))

    return pairs(accept), build


# ---- embedding ---------------------------------------------------------------------------


def _embedding_ok(w, idx, syms):
    exact = idx.dtype in ("int64", "bool")
    return w.rank == 2 and syms.at_least_one(w.shape[0]) and (exact or idx.rank >= 1)


def _embedding(types, syms, pick):
    w, idx = types
    if idx.dtype in ("int64", "bool"):
        index, shape = "torch.remainder({1}.long().abs(), {0}.shape[0])", idx.shape
    else:
        index, shape = "torch.remainder(torch.arange({1}.shape[0]), {0}.shape[0])", idx.shape[:1]
    return Built({"index": index}, (TensorType(shape + (w.shape[1],), w.dtype),))


# ---- conv and interpolate ----------------------------------------------------------------


def _batched(t, spatial):
    """How the operand becomes (N, 1, *spatial dims) and that N: leading dims flattened."""
    lead = t.shape[: t.rank - spatial] if t.rank > spatial else ()
    pad = spatial - min(t.rank, spatial)  # missing spatial dims are 1
    if not lead:
        return "{0}[" + ", ".join(["None"] * (2 + pad)) + "]", ONE
    if len(lead) == 1:
        return "{0}.unsqueeze(1)", lead[0]
    return f"{{0}}.flatten(0, {-spatial - 1}).unsqueeze(1)", sympy.Mul(*lead)


def _spatial_dims(t, spatial):
    return ((ONE,) * spatial + tuple(t.shape))[-spatial:]


def _spatial_ok(spatial, whole=False):
    """Float operands whose `spatial` last dims are never empty; with `whole`, no dim is
    ever empty (interpolate: Thunder 0.2.6 refuses an empty batch that eager accepts,
    "RuntimeError: Expected a.numel=... to be greater than 0")."""

    def accept(t, syms):
        dims = t.shape if whole else _spatial_dims(t, spatial)
        return float_typed(t, syms) and t.rank >= 1 and all(syms.at_least_one(d) for d in dims)

    return accept


def _conv(spatial):
    def build(types, syms, pick):
        (t,) = types
        prep, n = _batched(t, spatial)
        dims = _spatial_dims(t, spatial)
        kernel = tuple(pick.integer(1, min(3, syms.range(d)[0])) for d in dims)
        padding, stride, cout = pick.index(2), pick.integer(1, 2), pick.integer(1, 3)
        out = tuple(sympy.floor((d + 2 * padding - k) / stride) + 1 for d, k in zip(dims, kernel))
        weight_shape = (cout, 1) + kernel
        numel = sympy.Mul(*weight_shape)
        attrs = {
            "x": prep,
            "weight": f"(torch.arange({numel}, dtype={{0}}.dtype) / {numel} - 0.5)"
            f".reshape{weight_shape}",
            "stride": stride,
            "padding": padding,
        }
        return Built(attrs, (TensorType((n, sympy.Integer(cout)) + out, t.dtype),))

    return build


def _interpolate(mode, spatials):
    """F.interpolate in `mode` over 1 or 2 spatial dims (drawn from `spatials` where the
    operand has them), by a scale factor or an output size of 2 or 4 times the input."""

    def build(types, syms, pick):
        (t,) = types
        fits = [n for n in spatials if _spatial_ok(n, whole=True)(t, syms)]
        spatial = pick.pick(fits)
        prep, n = _batched(t, spatial)
        dims = _spatial_dims(t, spatial)
        factor = pick.pick((2, 4))
        # Not 1-D nearest by scale_factor: its decomposition computes the scale with
        # `sym_float`, which ExecuTorch 1.5.1's edge verifier refuses at to_edge on
        # dynamic sizes (`assert op.__name__ in ("alloc",)`, AssertionError).
        if pick.flag() and (mode, spatial) != ("nearest", 1):
            how = f"scale_factor={float(factor)}"
        else:
            sizes = [f"{{0}}.shape[{i}] * {factor}" for i in range(-spatial, 0)]
            sizes = [str(factor)] * (spatial - t.rank) + sizes[max(0, spatial - t.rank) :]
            how = "size=(" + ", ".join(sizes) + ",)"
        if mode == "linear":
            # align_corners=False only: with True and dynamic sizes, the decomposition
            # computes its scale with `sym_float`, which ExecuTorch 1.5.1's edge verifier
            # refuses at to_edge (`assert op.__name__ in ("alloc",)`, AssertionError).
            # Not given to bilinear: Thunder 0.2.6 refuses any explicit align_corners
            # ("NotImplementedError: Thunder does not yet support 'align_corners'.").
            how += ", align_corners=False"
        out = (n, ONE) + tuple(d * factor for d in dims)
        return Built({"x": prep, "mode": repr(mode), "how": how}, (TensorType(out, t.dtype),))

    return build


BATCHED = "{out} = torch.bmm({a}, {b})"
CONV = "{out} = F.conv%s({x}, {weight}, stride={stride}, padding={padding})"
INTERPOLATE = "{out} = F.interpolate({x}, {how}, mode={mode})"

OPS = (
    op("bmm", BATCHED, pairs(_bmm_ok), _bmm, family="matmul"),
    op(
        "baddbmm",
        "{out} = torch.baddbmm({2}, {a}, {b}, beta={beta}, alpha={alpha})",
        _with_addend(lambda a, b: [s for _, _, s in _batched_forms(a, b).values()]),
        _baddbmm,
        family="matmul",
    ),
    op(
        "addmm",
        "{out} = torch.addmm({2}, {0}, {1}, beta={beta}, alpha={alpha})",
        _with_addend(_mm_shape),
        _addmm,
        family="matmul",
    ),
    op(
        "linear",
        "{out} = F.linear({0}, {1})",
        pairs(_linear_ok),
        _linear,
        family="matmul",
        imports=F_IMPORT,
    ),
    op(
        "linear_bias",
        "{out} = F.linear({0}, {1}, {bias})",
        _linear_bias_operands,
        _linear_bias,
        family="matmul",
        imports=F_IMPORT,
    ),
    op(
        "einsum_contract",
        "{out} = torch.einsum({eq}, {0}, {1})",
        *_einsum(_contractions),
        family="matmul",
    ),
    op(
        "einsum_reduce",
        "{out} = torch.einsum({eq}, {0}, {1})",
        *_einsum(_reductions),
        family="matmul",
    ),
    op(
        "embedding",
        "{out} = F.embedding({index}, {0})",
        pairs(_embedding_ok),
        _embedding,
        family="spatial",
        imports=F_IMPORT,
    ),
    op("conv1d", CONV % "1d", unary(_spatial_ok(1)), _conv(1), family="spatial", imports=F_IMPORT),
    op("conv2d", CONV % "2d", unary(_spatial_ok(2)), _conv(2), family="spatial", imports=F_IMPORT),
    op(
        "interpolate_nearest",
        INTERPOLATE,
        unary(_spatial_ok(1, whole=True)),
        _interpolate("nearest", (1, 2)),
        family="spatial",
        imports=F_IMPORT,
    ),
    OpSpec(
        "interpolate_bilinear",
        "spatial",
        INTERPOLATE,
        unary(_spatial_ok(2, whole=True)),
        _interpolate("bilinear", (2,)),
        # Thunder 0.2.6 under symbolic values, by scale_factor or size alike: "ValueError:
        # [FloatProxy name=f34, value=0.5, ...] had an unexpected type <class
        # 'thunder.core.proxies.FloatProxy'>. Supported types are (<class
        # 'thunder.core.proxies.TensorProxy'>, ...)".
        lanes=EXIR_ONLY,
        imports=F_IMPORT,
    ),
    OpSpec(
        "interpolate_linear",
        "spatial",
        INTERPOLATE,
        unary(_spatial_ok(1, whole=True)),
        _interpolate("linear", (1,)),
        # Thunder 0.2.6: "NotImplementedError: only modes 'nearest', 'nearest-exact' and
        # 'bilinear' are supported at the moment, but got mode='linear'".
        lanes=EXIR_ONLY,
        imports=F_IMPORT,
    ),
)
