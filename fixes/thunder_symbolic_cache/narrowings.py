"""Narrowings: what the trace would log as many decisions, logged as one.

Meta replays
------------
Fake-tensor metas: one replayable decision per call instead of one pin per input size.

Thunder runs the ops it registers automatically (`register_default_torch_op`) and every
`torch.library` custom op (`_register_custom_op`) through `thunder.torch.meta_adaptor`:
the meta turns each argument into a concrete fake value (`_get_fake_arg`:
`torch.empty(proxy.shape, ...)` for a tensor, `proxy.value` for a number), runs the torch
function under `FakeTensorMode`, and makes the outputs' shapes from the fake results,
as plain ints. Recorded one by one, that is an `index(size) == traced` decision for every
size of every tensor argument and a `number == traced` pin for every number argument: the
entry then serves only calls whose sizes are all the traced ones, although the trace
depends on them only through what the meta returns. In the Thunder lane's generated
programs (issue #21) these pins were most of the calls that missed although an entry
already had their exact trace: `head(x, n)` with another `x.shape[0]` but the same output
shape, `x.new_full((n,), v)`-like custom ops called with another size.

While a trace is recorded, such a call's own decisions are therefore replaced by one
decision that replays the meta: `_FakeMetaReplay(*symbolic values of the arguments)`
rebuilds the fake arguments exactly as `_get_fake_arg` does, runs the same torch function
under `FakeTensorMode`, and returns the outputs' signature (per output: shape, dtype,
device, requires_grad; or a number's type and value), which must equal the traced one.
Sound because everything the meta read is an argument we rebuild (sizes, dtypes,
devices, requires_grad, number values, constants): equal outputs give the same output
proxies, so the trace goes on exactly as traced; other decisions taken on the same sizes
outside the meta are recorded as before. A meta that raises on the new values raises in
the prologue, which is a miss. Calls with arguments we do not rebuild (tuple, list and
dict proxies, unknown kinds) keep their per-input decisions.

Number outputs of such a meta become expressions of the replay too (an `Op` on the same
arguments), where they were of unknown origin before (a decision on them pinned every
symbolic input of the trace). So do the sizes of its output tensors
(`symbolic_output_sizes`): stock `meta_adaptor` makes them plain ints, so the trace
depended on their exact values and the replay had to compare them; made `IntegerProxy`s
(their expression the replay's, `prims.shape` of the output bound right after the call so
the computation defines them, as it does for an op of Thunder's own), every decision the
trace takes on them is recorded and replayed, and the meta's own decision compares the
outputs' rank, dtype, device and requires_grad only. `head(x, n).reshape(2, -1)` then
serves any even `n` other than 2 from one entry; a night's 150 programs missed 11 legal
hits on the sizes compared exactly (2026-12-06).

The replay is memoised per argument values (types included: `2`, `2.0` and `True` are
different keys), so a prologue that runs it for the same sizes again pays a dict lookup.

`or` chains
-----------
`or` chains inside Thunder's shape checks: one decision for the whole chain.

Thunder checks shapes with `utils.check(a or b or c, message)`. Python evaluates the
chain operand by operand, converting each proxy comparison with `__bool__`, and `check`
converts the operand the chain returned once more (`if not cond`). Recorded one by one,
those conversions pin which operand made the chain true, and reject calls whose check
passes through another operand, with the same trace (issue #21, the Thunder lane's
generated programs):

* `prims.broadcast_in_dim_meta`: `original_length == 1 or shape[idx] == original_length`.
  `unsqueeze`, `stack` and `expand` keep a size as it is (`shape[idx]` *is*
  `original_length`), but the first operand logged `size == 1 is False` (or `is True`
  for a size traced as 1), so an entry traced with that size 2 missed every call where it
  is 1, and the other way round;
* `clang.utils.expand_impl`: `requested_length == x or x == 1 or requested_length == -1`.
  `x.unsqueeze(0).expand(n, *x.shape)` compares `n` with the new dim's literal 1 and
  logged `n == 1 is False`, pinning `n` away from 1 although `x == 1` holds for any `n`;
* `clang.utils.compute_broadcast_shape`'s check,
  `(shape[idx] == 1) or (common_shape[idx] == shape[idx])` (its `if common_shape[idx] == 1`
  above is a real branch and stays recorded as it is).

Each chain is the whole condition of a check whose only effect is to raise or not, so
all the trace requires is that the chain stays true. While recording, a `__bool__` taken
on a chain's line, or by `check` called from the line that holds the chain, is therefore
not logged by itself; instead the chain is logged once as one decision,
`chain(operands...) is <value>`, with the operands read from the caller's frame and the
chain re-evaluated on their values (plain Python, the same operators). On replay it is
recomputed from the new inputs: a call whose chain passes through another operand hits,
and one whose chain fails misses (a fresh trace would raise there).

The lines are found in the functions' source when the fix is installed (Thunder 0.2.6
only); a chain that is not found exactly as expected is not listed, which keeps its
conversions as decisions (sound). Only plain-Python callers are matched (the converting
frame must be the function's own): these functions run as metas and helpers, never under
Thunder's interpreter. Other conversions on these lines (`__index__`, ...) are logged
as before.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from fixes.thunder_symbolic_cache.expressions import Op

_MEMO_LIMIT = 256  # argument tuples kept per replay (a prologue sees few distinct sizes)


def meta_adaptor_function(sym, meta_func_code) -> Any | None:
    """The torch function of `sym` when its meta is `thunder.torch.meta_adaptor`'s
    `meta_func` (possibly wrapped by `langctx`), else None."""
    if meta_func_code is None:
        return None
    meta = getattr(sym, "meta", None)
    seen = 0
    while meta is not None and seen < 4:
        code = getattr(meta, "__code__", None)
        if code is meta_func_code:
            try:
                cell = meta.__closure__[code.co_freevars.index("torch_func")]
                return cell.cell_contents
            except (ValueError, TypeError, IndexError):
                return None
        meta = getattr(meta, "__wrapped__", None)
        seen += 1
    return None


class _FakeMetaReplay:
    """`meta_adaptor`'s computation as a function of the symbolic values of its arguments:
    returns the signature of the outputs (see the module docstring)."""

    __slots__ = ("torch_func", "spec", "template", "memo", "out_names", "__name__")

    def __init__(self, torch_func, spec, template):
        self.torch_func = torch_func
        self.spec = spec  # thunder pytree spec of (args, kwargs)
        # Per flattened leaf: ("c", value) a constant; ("n", k) the k-th replay argument;
        # ("t", dims, dtype, device, requires_grad), dims entries ("c", int) or ("n", k).
        self.template = template
        self.memo: dict = {}
        self.out_names: tuple = ()  # the traced output proxies' names (None: not a tensor)
        self.__name__ = f"fake_meta[{getattr(torch_func, '__name__', 'op')}]"

    def __call__(self, *values):
        key = tuple((type(v), v) for v in values)
        try:
            return self.memo[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable value: replay without memo
            return self._run(values)
        out = self._run(values)
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = out
        return out

    def _run(self, values):
        import torch
        from thunder.core.devices import to_torch_device
        from thunder.core.pytree import tree_flatten, tree_unflatten
        from thunder.torch import to_torch_dtype
        from torch._subclasses.fake_tensor import FakeTensorMode

        def dim(d):
            return d[1] if d[0] == "c" else values[d[1]]

        with FakeTensorMode():
            leaves = []
            for t in self.template:
                if t[0] == "c":
                    leaves.append(t[1])
                elif t[0] == "n":
                    leaves.append(values[t[1]])
                else:
                    _, dims, dtype, device, requires_grad = t
                    leaves.append(
                        torch.empty(
                            tuple(dim(d) for d in dims),
                            dtype=to_torch_dtype(dtype),
                            requires_grad=requires_grad,
                            device=to_torch_device(device),
                        )
                    )
            args, kwargs = tree_unflatten(leaves, self.spec)
            outs = self.torch_func(*args, **kwargs)
        flat, _ = tree_flatten(outs)
        return tuple(_signature(o) for o in flat)


class _OutputNumber:
    """The value of the `pos`-th output of a replay (a number output of the meta)."""

    __slots__ = ("replay", "pos", "__name__")

    def __init__(self, replay, pos):
        self.replay, self.pos = replay, pos
        self.__name__ = f"{replay.__name__}[{pos}]"

    def __call__(self, *values):
        return self.replay(*values)[self.pos][2]


def _signature(o):
    import torch

    if isinstance(o, torch.Tensor):
        return ("t", tuple(int(s) for s in o.shape), o.dtype, o.device, o.requires_grad)
    if isinstance(o, (bool, int, float, complex)):
        return ("n", type(o).__name__, o)
    if isinstance(o, torch.Size):
        return ("s", tuple(int(s) for s in o))
    return ("c", type(o).__name__, repr(o))


def _traced_signature(o, NumberProxy, TensorProxy):
    """The signature of a traced output proxy, as `_signature` gives it for the fake one."""
    if isinstance(o, TensorProxy):
        shape = []
        for s in o._shape:
            v = s.__dict__.get("value") if isinstance(s, NumberProxy) else s
            if not isinstance(v, int):
                raise TypeError("output size without a known int value")
            shape.append(int(v))
        from thunder.core.devices import to_torch_device
        from thunder.torch import to_torch_dtype

        return (
            "t",
            tuple(shape),
            to_torch_dtype(o.dtype),
            to_torch_device(o.device),
            o.requires_grad,
        )
    if isinstance(o, NumberProxy):
        v = o.__dict__.get("value")
        return ("n", type(v).__name__, v)
    return _signature(o)


def record_meta_call(rec, start: int, torch_func, args, kwargs, result) -> None:
    """Replaces the decisions `rec` logged from `start` (the meta's own reads of its
    arguments) by one replay of the meta; leaves them as they are when some argument
    cannot be rebuilt or the replay does not reproduce the traced outputs."""
    try:
        built = _replay_of(rec, torch_func, args, kwargs, result)
    except Exception:
        built = None  # keeping the per-input decisions is always sound
    if built is None:
        return
    replay, arg_nodes, observed, out_flat = built
    # The meta runs on concrete fake values, so what it logged are reads of its arguments
    # (subsumed by the replay); anything else logged in the window is kept.
    own = {id(n) for n in arg_nodes}
    kept = [d for d in rec.decisions[start:] if id(d[0]) not in own]
    del rec.decisions[start:]
    rec.decisions.extend(kept)
    free = symbolic_output_sizes(rec, replay, arg_nodes, out_flat)
    if free:
        rec.decisions.append(
            (Op(_SizesOf(replay, free), arg_nodes), "value", _without_sizes(observed, free))
        )
    else:
        rec.decisions.append((Op(replay, arg_nodes), "value", observed))
    for pos, o in enumerate(out_flat):
        if isinstance(o, rec.NumberProxy) and id(o) not in rec.nodes:
            rec.nodes[id(o)] = Op(_OutputNumber(replay, pos), arg_nodes)
            rec.keep.append(o)


class _OutputSize:
    """Size `dim` of the `pos`-th output of a replay (a tensor output of the meta)."""

    __slots__ = ("replay", "pos", "dim", "__name__")

    def __init__(self, replay, pos, dim):
        self.replay, self.pos, self.dim = replay, pos, dim
        self.__name__ = f"{replay.__name__}[{pos}].shape[{dim}]"

    def __call__(self, *values):
        return self.replay(*values)[self.pos][1][self.dim]


def symbolic_output_sizes(rec, replay, arg_nodes, out_flat) -> frozenset:
    """Makes the sizes of the meta's output tensors symbolic, as an op of Thunder's own
    would: each static size becomes an `IntegerProxy` (constrainable, like an input's
    size) whose expression is the replay's, and `prims.shape` of the output is bound
    right after the call so the computation defines them. Everything the trace goes on to
    decide on those sizes is then recorded (and replayed) as a decision on the meta's
    arguments, and the meta's own decision no longer needs the sizes equal: a custom op
    called on other sizes (`bmul(x, y)` with (6, 3) after (5, 3)) can hit the entry
    where its trace is the same. Returns the positions of the outputs made symbolic.

    Only at the top level of the trace: inside another symbol the sizes would be defined
    in its subsymbols, which the executors do not run."""
    from functools import reduce
    from operator import mul

    import thunder.core.prims as prims
    from thunder.core.proxies import CONSTRAINT, IntegerProxy
    from thunder.core.trace import get_tracectx

    trace = get_tracectx()
    if trace is None or len(trace.scopes) != 1:
        return frozenset()
    free = set()
    for pos, o in enumerate(out_flat):
        if not isinstance(o, rec.TensorProxy) or not o._shape:
            continue
        if not all(type(d) is int for d in o._shape):
            continue
        sizes = tuple(IntegerProxy(value=d, constraint=CONSTRAINT.CONSTRAINABLE) for d in o._shape)
        for dim, size in enumerate(sizes):
            rec.nodes[id(size)] = Op(_OutputSize(replay, pos, dim), arg_nodes)
            rec.keep.append(size)
        o._shape = sizes
        o._numel = lambda *args, o=o: reduce(mul, o._shape, 1)
        prims.shape(o)  # binds `(i.., ) = prims.shape(o)`: the sizes are defined
        free.add(pos)
    return frozenset(free)


def _replay_of(rec, torch_func, args, kwargs, result):
    """(replay, argument nodes, traced output signature, flat outputs), or None when an
    argument is of a kind we do not rebuild or the rebuild does not reproduce the meta."""
    from thunder.core.pytree import tree_flatten

    NumberProxy, TensorProxy = rec.NumberProxy, rec.TensorProxy
    flat, spec = tree_flatten((args, kwargs))
    nodes: list = []
    proxies: list = []
    index: dict[int, int] = {}  # id(proxy) -> position among the replay's arguments

    def arg(p) -> tuple:
        if id(p) not in index:
            index[id(p)] = len(nodes)
            nodes.append(rec.node(p))
            proxies.append(p)
        return ("n", index[id(p)])

    template = []
    for leaf in flat:
        if isinstance(leaf, NumberProxy):
            template.append(arg(leaf))
        elif isinstance(leaf, TensorProxy):
            dims = tuple(arg(s) if isinstance(s, NumberProxy) else ("c", s) for s in leaf._shape)
            if any(d[0] == "c" and not isinstance(d[1], int) for d in dims):
                return None
            template.append(("t", dims, leaf.dtype, leaf.device, leaf.requires_grad))
        elif leaf is None or isinstance(leaf, (bool, int, float, complex, str)):
            template.append(("c", leaf))
        elif _is_plain_metadata(leaf):
            template.append(("c", leaf))
        else:
            return None  # tuple/list/dict proxies and other kinds: keep the decisions
    if not nodes or any(n is None for n in nodes):
        return None
    replay = _FakeMetaReplay(torch_func, spec, template)
    out_flat, _ = tree_flatten(result)
    replay.out_names = tuple(o.name if isinstance(o, TensorProxy) else None for o in out_flat)
    observed = tuple(_traced_signature(o, NumberProxy, TensorProxy) for o in out_flat)
    # The traced values, read without going through the recording `.value` descriptor.
    if replay(*(p.__dict__.get("value") for p in proxies)) != observed:
        return None  # our rebuild does not reproduce the meta: keep what was recorded
    return replay, tuple(nodes), observed, out_flat


class _SizesOf:
    """A meta replay whose tensor outputs at `free` are compared without their sizes
    (kind, dtype, device, requires_grad and rank still are)."""

    __slots__ = ("replay", "free", "__name__")

    def __init__(self, replay, free: frozenset):
        self.replay, self.free = replay, free
        self.__name__ = replay.__name__

    def __call__(self, *values):
        return _without_sizes(self.replay(*values), self.free)


def _without_sizes(signature: tuple, free: frozenset) -> tuple:
    return tuple(
        ("t", len(s[1]), *s[2:]) if i in free and s[0] == "t" else s
        for i, s in enumerate(signature)
    )


def relax_unconsumed(decisions: list, computation_trace) -> list:
    """The decisions, with each meta replay comparing the sizes only of the outputs that
    something in the finished computation consumes.

    A meta's output tensors have static sizes (plain ints). Everything that can depend on
    them while tracing takes the tensor as an argument of a bound symbol: Thunder's
    symbols (whose metas read `_shape`), and user code reading `.shape` (under symbolic
    values `TensorProxy.shape` binds `prims.shape(t)`), `.size()`, `numel()`, `len()`.
    An output that no bound symbol at any depth takes, other than the one that made it
    and the trace's `return`, reaches the trace only as its own type annotation (the
    sizes Thunder prints there, which are not part of the computation: the oracle's
    normalisation drops them too), and at run time the op computes the real sizes. So
    its sizes are not compared; its rank, dtype, device and requires_grad still are.
    Without the finished trace, nothing is relaxed."""
    if computation_trace is None:
        return decisions
    metas = [d for d in decisions if isinstance(d[0], Op) and isinstance(d[0].fn, _FakeMetaReplay)]
    if not metas:
        return decisions
    from thunder.core.prims import PrimIDs
    from thunder.core.proxies import Proxy
    from thunder.core.pytree import tree_flatten

    produced_by: dict[str, int] = {}  # output name -> id of the bsym that made it first
    consumed: set[str] = set()

    def walk(bsyms) -> None:
        for b in bsyms:
            outs, _ = tree_flatten(b.output)
            for o in outs:
                if isinstance(o, Proxy):
                    produced_by.setdefault(o.name, id(b))
            if b.sym.id != PrimIDs.RETURN:
                args, _ = tree_flatten((b.args, b.kwargs))
                for a in args:
                    if isinstance(a, Proxy) and produced_by.get(a.name) != id(b):
                        consumed.add(a.name)
            walk(b.subsymbols)

    walk(computation_trace.bound_symbols)
    out = []
    for node, kind, observed in decisions:
        fn = node.fn if isinstance(node, Op) else None
        if isinstance(fn, _FakeMetaReplay):
            free = frozenset(
                i
                for i, name in enumerate(fn.out_names)
                if name is not None and name in produced_by and name not in consumed
            )
            if free:
                node, observed = Op(_SizesOf(fn, free), node.args), _without_sizes(observed, free)
        out.append((node, kind, observed))
    return out


def _is_plain_metadata(x) -> bool:
    import torch
    from thunder.core import devices, dtypes

    return isinstance(
        x, (torch.dtype, torch.device, torch.memory_format, devices.Device, dtypes.dtype)
    )


@dataclasses.dataclass(frozen=True)
class _Chain:
    """One chain: where it is, how to read its operands from the frame, its comparisons
    (Python source over `{0}`, `{1}`, ... for `params`, in order, with the operands each
    one reads) and
    whether they are bound into the trace (`bound`: False inside a prim's meta, where
    Thunder records nothing)."""

    module: str
    function: str
    text: str  # the chain's source line, stripped
    operands: Callable[[dict], tuple]
    params: tuple[str, ...]
    ops: tuple[str, ...]
    uses: tuple[tuple[int, ...], ...]  # an op with two operands is their equality
    bound: bool


def _chain_replay_function(chain: _Chain, is_proxy: tuple[bool, ...]):
    """The chain as one decision: a function of the operands' values. Where the chain
    binds nothing it returns whether the chain passes (a "bool" decision); else it returns
    an int numbering the outcome `(passes, the comparisons evaluated that the trace
    binds)` (an "int" decision): comparisons that involve a proxy bind a symbol
    (`prims.eq`, ...) into the trace when they run outside a prim's meta, so which of them
    run is part of the trace, and part of the decision. Evaluated comparison by
    comparison as Python's `or` does; the function carries an inline form
    (`__inline__`, a conditional expression the prologue generator writes out in place
    of a call: it runs in every prologue call)."""
    bound_ops = [
        i for i, used in enumerate(chain.uses) if chain.bound and any(is_proxy[u] for u in used)
    ]
    outcomes: list = []  # outcome after comparison k passes (k < len), or none does
    evaluated: list[int] = []
    for i in range(len(chain.ops)):
        if i in bound_ops:
            evaluated.append(i)
        outcomes.append((True, tuple(evaluated)))
    outcomes.append((False, tuple(evaluated)))
    if bound_ops:
        ids: dict = {}
        results = [ids.setdefault(o, len(ids)) for o in outcomes]
    else:
        results = [passes for passes, _ in outcomes]
    # `(r0 if (op0) else r1 if (op1) else ... rN)` over `{0}`, `{1}`, ...
    inline = "(" + " ".join(f"{r!r} if ({op}) else" for r, op in zip(results, chain.ops))
    inline += f" {results[-1]!r})"
    name = chain.function + "_check"
    params = [f"a{i}" for i in range(len(chain.params))]
    src = f"def {name}({', '.join(params)}):\n    return {inline.format(*params)}\n"
    ns: dict = {}
    exec(compile(src, f"<or-chain {name}>", "exec"), ns)
    fn = ns[name]
    fn.__inline__ = inline
    fn.kind = "int" if bound_ops else "bool"
    return fn


_CHAINS = (
    _Chain(
        "thunder.core.prims",
        "broadcast_in_dim_meta",
        "original_length == 1 or shape[idx] == original_length,",
        lambda f: (f["original_length"], f["shape"][f["idx"]]),
        ("o", "t"),
        ("{0} == 1", "{1} == {0}"),
        ((0,), (0, 1)),
        bound=False,  # a prim's meta: Thunder records nothing it computes
    ),
    _Chain(
        "thunder.clang.utils",
        "expand_impl",
        "requested_length == x or x == 1 or requested_length == -1,",
        lambda f: (f["requested_length"], f["x"]),
        ("r", "x"),
        ("{0} == {1}", "{1} == 1", "{0} == -1"),
        ((0, 1), (1,), (0,)),
        bound=True,
    ),
    _Chain(
        "thunder.clang.utils",
        "compute_broadcast_shape",
        "(shape[idx] == 1) or (common_shape[idx] == shape[idx]),",
        lambda f: (f["shape"][f["idx"]], f["common_shape"][f["idx"]]),
        ("s", "c"),
        ("{0} == 1", "{1} == {0}"),
        ((0,), (0, 1)),
        bound=True,
    ),
)


def always_passes(chain: _Chain, nodes: tuple, values: tuple, is_proxy: tuple) -> bool:
    """Whether the chain's outcome cannot change: some comparison is an int operand
    compared with itself (the same expression node, as in `t == o` for a size `stack`
    keeps) and no comparison bound into the trace may run before it. Such a chain is not
    logged at all (the replay would always give the traced result)."""
    for used in chain.uses:
        if len(used) == 2 and nodes[used[0]] is nodes[used[1]]:
            v = values[used[0]]
            raw = v.__dict__.get("value") if is_proxy[used[0]] else v
            return type(raw) is int  # (a float could be NaN, never equal to itself)
        if chain.bound and any(is_proxy[u] for u in used):
            return False  # which comparisons run before it is part of the trace
    return False


_replays: dict[tuple, Callable] = {}


def chain_replay(chain: _Chain, is_proxy: tuple[bool, ...]) -> Callable:
    """The replay of `chain` for operands of which `is_proxy` are proxies: one function
    per chain and pattern, so equal decisions are replayed once (`expressions.node_key` keys
    functions by identity)."""
    key = (id(chain), is_proxy)
    r = _replays.get(key)
    if r is None:
        r = _replays[key] = _chain_replay_function(chain, is_proxy)
    return r


def chain_sites() -> tuple[dict, dict, object]:
    """`({(code, chain line): chain}, {(code, check call line): chain}, check's code)` for
    the chains found in the installed Thunder (see the module docstring)."""
    import importlib

    from thunder.core import baseutils

    at_chain, at_check = {}, {}
    for chain in _CHAINS:
        try:
            fn = getattr(importlib.import_module(chain.module), chain.function)
            lines, start = inspect.getsourcelines(fn)
        except (ImportError, AttributeError, OSError, TypeError):
            continue
        found = [i for i, line in enumerate(lines) if line.strip() == chain.text]
        # Exactly one such line, the argument of a `utils.check(` call opened on the line
        # above: anything else and the chain is left alone.
        if len(found) != 1 or found[0] == 0 or lines[found[0] - 1].strip() != "utils.check(":
            continue
        at_chain[(fn.__code__, start + found[0])] = chain
        at_check[(fn.__code__, start + found[0] - 1)] = chain
    return at_chain, at_check, baseutils.check.__code__
