"""The `thunder-symbolic-cache` fix (Thunder 0.2.6, `cache="symbolic values"` unsound hits).

Stock and fixed Thunder are observed in this process, one after the other, by switching
the fix with `fixes.applied(...)` (exactly that fix, or "off"; the previous state comes
back after the block). Each observation jits its functions afresh, so no cache entry is
shared between the two; the reports are computed once per process and cached. What the
pytest process itself has applied (the repo's `--fixes` switch) does not matter to
these tests.

Each case jits a function with `cache="symbolic values"`, calls it with `first`, then
with `second`, and records: whether the second call hit, its result against eager, and
whether the computation trace it ran is the one a fresh trace of `second` gives (the
structure of the trace: symbols, including sub-symbols, with argument kinds and dtypes).

* FLIP cases take another decision on `second`: with the fix they must miss and match
  eager and the fresh trace; without it they hit (the upstream bug), and the result or the
  trace is wrong, or the stale trace crashes (`split_rows`: the number of outputs was
  unrolled from the traced size). Exception, documented: `numel_gt` misses on stock
  Thunder too, because propagate_constraints pins both sizes (numel's products are
  top-level in the trace); `numel_min` shows the same decision hitting wrongly through
  `min()`, which converts the comparison with `__bool__` from C.
* KEEP cases take every decision the same way on `second`: with the fix they must hit.
  `numel_gt_keep` and `scalar_gt_keep` miss on stock Thunder (its static pins) and hit
  with the fix, which replays the decision instead of pinning the inputs.

`unused_alias_halves` (a KEEP case) guards the rule that recording leaves the trace as it
is: with the fix, each case's computation takes the same inputs as on stock Thunder.

`alias_shape_flip` / `alias_same_tensor_keep` cover the decisions Thunder's input-alias
handling takes after tracing (`insert_alias_updates` compares the shapes of inputs that
share storage): traced with x2 being x1, a call with x2 a smaller view of x1 must miss
(stock Thunder hits and returns x1-shaped results; with the fix the call fails as a
fresh trace does on 0.2.6), and a call with another tensor passed twice must still hit.

Issue #21 (the fix must not miss where an entry already has the call's trace): the
`*_keep` cases `stack_size1`, `stack_from_size1`, `expand_new_dim` (the `or` chains of
Thunder's shape checks, logged as one decision), `custom_head` (a `meta_adaptor` meta,
replayed instead of pinning every input size), `custom_head_other_n` (the meta's output
sizes symbolic: what the trace decides on them is replayed, not their values) and
`narrow_returned` (a meta output that nothing consumes: its sizes are not compared) come
from the Thunder lane's generated programs and missed before; `expand_rows_flip`,
`custom_head_flip` and `narrow_shape_branch_flip` must keep missing (the chain fails; a
branch on the meta's output size flips; the output's size is read by a branch).

Also: the prologue shows the replayed decisions; applying is idempotent; a failure inside
the recorder pins every symbolic input (sound) instead of breaking the trace; the version
gate refuses other Thunder versions.
"""

from __future__ import annotations

import functools
import math
import re

import pytest

import fixes
from fuzz.errors import error_text

FIX = "thunder-symbolic-cache"


# ------------------------------------------------------------------------------------
# The programs
# ------------------------------------------------------------------------------------


def f_tuple_eq(a, b):
    if tuple(a.shape) == (2, 2):
        return a
    return b


def g_add(a, b):
    return a + b


def h_eq(a):
    return a * 2 if a.shape[0] == 2 else a + 1


def k_range(a):
    for i in range(a.shape[0]):
        a = a + i
    return a


def m_dict(a):
    return {2: 1.0, 3: 2.0}[a.shape[0]] * a


def n_mul(a, s):
    return a * s


def log1p_number(a, n):
    return a * math.log1p(n)


def sqrt_size(a):
    return a * math.sqrt(a.shape[0])


def all_gt(a):
    return a + 1 if all(d > 1 for d in a.shape) else a - 1


def numel_gt(a):
    return a + 1 if a.numel() > 6 else a - 1


def numel_min(a):
    return a * min(a.numel(), 6)


def mod_eq(a):
    return a + 1 if a.shape[1] % 2 == 0 else a - 1


def lt(a):
    return a + 1 if a.shape[0] < 4 else a - 1


def scalar_gt(a, s):
    if s > 0:
        return a * s
    return a


def split_rows(a):
    return a.split(1, 0)[-1] * 2


def alias_exp(x1, x2):
    # Both inputs used: when they share storage, Thunder's alias handling replaces x2 by x1
    # (reshaped if their shapes differ) after tracing.
    return x2.exp().add_(1) * x1.sum()


def exp_add_unused(x1, x2):
    # x1 is unused; an in-place op (here on an intermediate) makes Thunder run its alias
    # handling on inputs that share storage.
    return x2.exp().add_(1)


def stack_pair(a):
    import torch

    return torch.stack([a, a], dim=1)


def expand_new_dim(a, n):
    return a.unsqueeze(0).expand(n, *a.shape)


def arange_rows(a):
    import torch

    return a * torch.arange(a.shape[1])


def einsum_chain(a, b, c):
    import torch

    return torch.einsum("ij,jk,kl->il", a, b, c)


def expand_rows(a, n):
    return a.expand(n, a.shape[1])


def head_rows(a, n):
    import torch

    return torch.ops.fuzz.head(a, n).reshape(2, -1)


def head_branch(a, n):
    import torch

    v = torch.ops.fuzz.head(a, n)
    return v * 2 if v.shape[0] > 4 else v + 1


def narrow_min(a, n):
    return a.narrow(0, 0, min(n, a.shape[0]))


def narrow_shape_branch(a, n):
    v = a.narrow(0, 0, min(n, a.shape[0]))
    return v * 2 if v.shape[0] == 3 else v + 1


def _inputs():
    import torch

    g = torch.Generator().manual_seed(0)

    def R(*shape):
        return torch.randn(*shape, generator=g)

    def I(*shape):  # noqa: E743
        return torch.arange(math.prod(shape)).reshape(shape)

    A = R(2, 3)  # passed twice
    B = R(4, 10)  # split into two disjoint halves
    C = R(4, 3)  # passed with a view of its first rows
    D = R(4, 5)  # passed twice

    # name: (fn, first args, second args)
    flip = {
        "f_tuple_eq": (f_tuple_eq, (R(2, 2), R(1)), (R(2, 1), R(8))),
        "g_add": (g_add, (R(2, 2), R(1)), (R(2, 1), R(8))),
        "h_eq": (h_eq, (R(2, 3),), (R(3, 3),)),
        "k_range": (k_range, (R(2, 3),), (R(4, 3),)),
        "m_dict": (m_dict, (R(2, 3),), (R(3, 3),)),
        "n_int_then_float": (n_mul, (I(2, 3), 2), (I(2, 3), 2.5)),
        "sqrt_size": (sqrt_size, (R(2, 3),), (R(3, 3),)),
        "all_gt": (all_gt, (R(2, 3),), (R(1, 3),)),
        "numel_gt": (numel_gt, (R(2, 3),), (R(2, 4),)),
        "numel_min": (numel_min, (R(2, 2),), (R(2, 4),)),
        "mod_eq": (mod_eq, (R(2, 4),), (R(2, 3),)),
        "lt": (lt, (R(2, 3),), (R(5, 3),)),
        "split_rows": (split_rows, (R(2, 3),), (R(4, 3),)),
        # Traced with x2 *being* x1, called with x2 a smaller view of x1 (still sharing
        # storage, so Thunder's alias check passes): the alias handling decided
        # `x2.shape == x1.shape` after tracing. Stock Thunder hits and computes with x1 in
        # place of x2 (wrong shape); with the fix it misses, and the fresh trace fails as
        # it does under the default cache (0.2.6 cannot reshape x1 to x2's shape).
        "alias_shape_flip": (alias_exp, (A, A), (C, C[:2])),
        # Issue #21's narrowings must still miss where the trace changes. expand_impl's
        # check `requested == x or x == 1 or requested == -1` passed through `x == 1`;
        # with a size-2 row it fails (a fresh trace raises; stock Thunder hits and the
        # stale broadcast fails at run time).
        "expand_rows_flip": (expand_rows, (R(1, 3), 4), (R(2, 3), 4)),
        # A custom op's meta (`meta_adaptor`) gives head(a, n) the shape (n,); a branch
        # on that size is a decision on the meta's output: another n that flips it misses.
        "custom_head_flip": (head_branch, (R(2, 3), 4), (R(2, 3), 6)),
        # narrow's meta (auto-registered: meta_adaptor) gives the output static sizes;
        # reading `v.shape` consumes the output, so its sizes stay compared and the
        # branch on them is kept.
        "narrow_shape_branch_flip": (narrow_shape_branch, (R(3), 3), (R(3), 1)),
        # opt_einsum picks the contraction order from the sizes: (a @ b) @ c, then, with
        # the small dims elsewhere, a @ (b @ c). The order is the decision: it flips.
        "einsum_order_flip": (
            einsum_chain,
            (R(2, 30), R(30, 3), R(3, 40)),
            (R(40, 3), R(3, 30), R(30, 2)),
        ),
    }
    keep = {
        "g_add_keep": (g_add, (R(2, 3), R(3)), (R(4, 5), R(5))),
        "h_eq_keep": (h_eq, (R(2, 3),), (R(2, 7),)),
        "add_equal_shapes": (g_add, (R(3, 4), R(3, 4)), (R(5, 6), R(5, 6))),
        "n_int_then_int": (n_mul, (R(2, 3), 2), (R(4, 3), 3)),
        "lt_keep": (lt, (R(2, 3),), (R(3, 5),)),
        "numel_gt_keep": (numel_gt, (R(2, 4),), (R(3, 3),)),
        "scalar_gt_keep": (scalar_gt, (R(2, 3), 1.5), (R(4, 3), 2.0)),
        "relu_any_shape": (lambda a: a.relu(), (R(2, 2, 2),), (R(3, 4, 5),)),
        "reshape_numel": (lambda a: a.reshape(a.numel()) * 2, (R(2, 3),), (R(4, 5),)),
        # Traced with x1 *is* x2, then called with x1, x2 the two disjoint halves of one
        # base: the same inputs share storage, so Thunder's alias check accepts the entry.
        # Stock Thunder (and the default cache) drop the unused x1 from the computation,
        # and its trace is right for both calls. The fix's first version made x1 an input
        # of the computation, and Thunder's alias handling then computed with x1 in place
        # of x2 (exp(x1) + 1; a fresh trace of the halves too).
        "unused_alias_halves": (exp_add_unused, (A, A), (B[:, :5], B[:, 5:])),
        # The alias decisions are replayed, not pinned: any sizes, x2 still being x1.
        "alias_same_tensor_keep": (alias_exp, (A, A), (D, D)),
        # Issue #21's missed legal hits (a miss whose trace equals the entry's), from the
        # Thunder lane's generated programs. `stack`/`unsqueeze` keep each size as it is;
        # broadcast_in_dim's check `size == 1 or target == size` was recorded operand by
        # operand (`size == 1 is False`), so a size that became 1 missed (and back).
        "stack_size1_keep": (stack_pair, (R(3, 2),), (R(3, 1),)),
        "stack_from_size1_keep": (stack_pair, (R(1, 1),), (R(2, 3),)),
        # expand(n, *a.shape) after unsqueeze(0): `n == 1` was logged against the new
        # dim's literal 1, although `x == 1` makes the check pass for any n.
        "expand_new_dim_keep": (expand_new_dim, (R(3), 2), (R(3), 1)),
        # A custom op (meta_adaptor meta): its meta read every size of `a`
        # (`torch.empty(a.shape)`) and `n`, each logged as a pin; the output (n,) depends
        # on n only, so another size of `a` keeps the trace.
        "custom_head_keep": (head_rows, (R(2, 3), 4), (R(5, 3), 4)),
        # The meta's output sizes are symbolic (an expression of the meta's arguments), as
        # an op of Thunder's own makes them: reshape(2, -1) of (n,) decides only that n is
        # even and not 2, so another such n keeps the trace. (They were static: the size
        # was baked into the trace and this missed.)
        "custom_head_other_n_keep": (head_rows, (R(2, 3), 4), (R(2, 3), 6)),
        # arange checks its stop with math.isfinite: a decision on finiteness (every size
        # is finite), not on the exact value that float() would pin (2026-12-06: 115
        # float pins in a 150-program night).
        "arange_size_keep": (arange_rows, (R(2, 3),), (R(2, 5),)),
        # n reaches the trace only as float(n), replayed as such: 3 and 3.0 give the same
        # trace, so the number's type is not checked (n_int_then_float, where the
        # computation takes n, still misses).
        "log1p_int_then_float_keep": (log1p_number, (R(2, 3), 3), (R(2, 3), 3.0)),
        # opt_einsum reads every size with int() to pick the contraction order; the order
        # is what the trace depends on, and here it stays.
        "einsum_order_keep": (
            einsum_chain,
            (R(2, 30), R(30, 3), R(3, 40)),
            (R(3, 30), R(30, 3), R(3, 40)),
        ),
        # A meta output that nothing consumes (only returned): its static size is in the
        # trace's annotation only, so another size hits (rank and dtype are compared).
        "narrow_returned_keep": (narrow_min, (R(3), 3), (R(3), 1)),
    }
    return flip, keep


FLIP_CASES = (
    "f_tuple_eq g_add h_eq k_range m_dict n_int_then_float sqrt_size all_gt numel_gt numel_min "
    "mod_eq lt split_rows alias_shape_flip expand_rows_flip custom_head_flip "
    "narrow_shape_branch_flip einsum_order_flip"
).split()
KEEP_CASES = (
    "g_add_keep h_eq_keep add_equal_shapes n_int_then_int lt_keep numel_gt_keep scalar_gt_keep "
    "relu_any_shape reshape_numel unused_alias_halves alias_same_tensor_keep "
    "stack_size1_keep stack_from_size1_keep expand_new_dim_keep custom_head_keep "
    "custom_head_other_n_keep arange_size_keep einsum_order_keep log1p_int_then_float_keep "
    "narrow_returned_keep"
).split()
# Run with the Thunder lane's executors (custom_op_ex runs the harness's custom ops).
CUSTOM_OP_CASES = {"custom_head_flip", "custom_head_keep", "custom_head_other_n_keep"}
# Misses on stock Thunder too: its static pins reach the sizes (see the module docstring).
STOCK_MISSES = {"numel_gt", "numel_gt_keep", "scalar_gt_keep"}
# The second inputs cannot be jitted by Thunder 0.2.6 at all (a fresh trace raises too):
# with the fix, the miss must raise what a fresh trace raises.
FRESH_TRACE_FAILS = {"alias_shape_flip", "expand_rows_flip"}


# ------------------------------------------------------------------------------------
# Observations
# ------------------------------------------------------------------------------------


def _signature(trace) -> list:
    """The structure of a computation trace: symbols (with sub-symbols), argument and
    output kinds (tensor dtype and rank, number type), which inputs are returned."""
    from thunder.core.proxies import NumberProxy, TensorProxy
    from thunder.core.pytree import tree_flatten

    def kind(x):
        if isinstance(x, TensorProxy):
            return f"T{x.ndim}:{x.dtype}"
        if isinstance(x, NumberProxy):
            return f"N:{x.python_type.__name__}"
        return re.sub(r" at 0x[0-9a-f]+", "", repr(x))  # (numel's output is a lambda)

    out = []

    def walk(bsyms, depth):
        for b in bsyms:
            args, _ = tree_flatten((b.args, b.kwargs))
            outs, _ = tree_flatten(b.output)
            out.append((depth, b.sym.name, [kind(a) for a in args], [kind(o) for o in outs]))
            walk(b.subsymbols, depth + 1)

    walk(trace.bound_symbols, 0)
    return out


def _same_result(x, y) -> bool:
    import torch

    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
        return (
            x.shape == y.shape and x.dtype == y.dtype and torch.allclose(x, y, atol=1e-5, rtol=1e-5)
        )
    return x == y


def _computation_inputs(trace) -> list:
    """The names of the computation trace's inputs (which call arguments it takes)."""
    from thunder.core.proxies import Proxy
    from thunder.core.pytree import tree_flatten

    flat, _ = tree_flatten((trace.args, trace.kwargs))
    return [a.name if isinstance(a, Proxy) else repr(a) for a in flat]


def _error(e) -> str:
    return error_text(e, 300)


def _jit(fn, executors=None):
    import thunder

    options = {} if executors is None else {"executors": executors}
    return thunder.jit(fn, cache="symbolic values", **options)


def _lane_executors() -> list:
    """The Thunder lane's executors, with the harness's custom ops registered in Thunder."""
    from fuzz.backends.thunder.lane import _executors, _thunder

    return _executors(_thunder())


def _fresh_error(fn, args, executors=None) -> str | None:
    try:
        _jit(fn, executors)(*args)
    except Exception as e:
        return _error(e)
    return None


def _observe(fn, first, second, executors=None) -> dict:
    import thunder

    jf = _jit(fn, executors)
    jf(*first)
    inputs = _computation_inputs(thunder.last_traces(jf)[0])
    try:
        out = jf(*second)
    except Exception as e:  # a stale trace can also crash
        return {
            "hit": thunder.cache_hits(jf) == 1,
            "misses": thunder.cache_misses(jf),
            "inputs": inputs,
            "error": _error(e),
            "fresh_error": _fresh_error(fn, second, executors),
        }
    used = _signature(thunder.last_traces(jf)[0])
    fresh_jf = _jit(fn, executors)
    try:
        fresh_jf(*second)
        fresh = _signature(thunder.last_traces(fresh_jf)[0])
    except Exception as e:  # the stale hit ran where a fresh trace cannot
        fresh = _error(e)
    return {
        "hit": thunder.cache_hits(jf) == 1,
        "inputs": inputs,
        "misses": thunder.cache_misses(jf),
        "result_ok": _same_result(out, fn(*second)),
        "trace_ok": used == fresh,
        "prologue": str(thunder.last_prologue_traces(jf)[-1]),
    }


def _idempotence() -> dict:
    from thunder.core.proxies import NumberProxy
    from thunder.core.symbol import Symbol

    import fixes.thunder_symbolic_cache as mod

    before = (NumberProxy.__bool__, Symbol.__call__, NumberProxy.__dict__["value"])
    again = [str(s) for s in fixes.apply([FIX])]
    mod.install()  # a direct second install is a no-op too
    after = (NumberProxy.__bool__, Symbol.__call__, NumberProxy.__dict__["value"])
    return {"same_patches": before == after, "status": again, "active": fixes.active()}


def _broken_recording() -> dict:
    """A recording failure must not break tracing and must not cost soundness: the check
    then pins every symbolic input (so a keep-call misses too, and results stay right)."""
    import fixes.thunder_symbolic_cache as mod
    from fixes._patching import Patch, apply_all, restore_all

    def failing(self, *args):
        raise RuntimeError("simulated recorder bug")

    broken = [Patch.set(mod.Recorder, "derive", failing)]
    apply_all(broken)
    try:
        import torch

        keep = _observe(h_eq, (torch.randn(2, 3),), (torch.randn(2, 7),))
        same = _observe(h_eq, (torch.randn(2, 3),), (torch.randn(2, 3),))
    finally:
        restore_all(broken)
    return {
        "keep": {k: v for k, v in keep.items() if k != "prologue"},
        "same": {k: v for k, v in same.items() if k != "prologue"},
    }


@functools.cache
def _probe(mode: str) -> dict:
    """Every case observed on stock Thunder ("nofix") or with the fix ("fix")."""
    import warnings

    from fixes.compat_thunder_named_tensor import import_thunder

    import_thunder()
    report: dict = {}
    with warnings.catch_warnings(), fixes.applied([FIX] if mode == "fix" else "off") as st:
        warnings.simplefilter("ignore")
        if mode == "fix":
            report["status"] = [str(s) for s in st]
        flip, keep = _inputs()
        report["cases"] = {
            name: _observe(*spec, _lane_executors() if name in CUSTOM_OP_CASES else None)
            for name, spec in {**flip, **keep}.items()
        }
        if mode == "fix":
            report["idempotence"] = _idempotence()
            report["broken_recording"] = _broken_recording()
    return report


# ------------------------------------------------------------------------------------
# pytest side
# ------------------------------------------------------------------------------------


def _require_thunder_026():
    state = fixes.state_for(FIX)  # "applies": lightning-thunder 0.2.6 is installed
    if state.state != "applies":
        pytest.skip(str(state))


def _case(mode: str, name: str) -> dict:
    _require_thunder_026()
    return _probe(mode)["cases"][name]


@pytest.mark.parametrize("name", FLIP_CASES)
def test_flip_misses_with_fix(name):
    c = _case("fix", name)
    assert not c["hit"] and c["misses"] == 2, f"{name}: a call whose decisions differ hit the cache"
    if name in FRESH_TRACE_FAILS:
        assert c.get("error") and c["error"] == c["fresh_error"], c
        return
    assert "error" not in c, c
    assert c["result_ok"], f"{name}: result differs from eager"
    assert c["trace_ok"], f"{name}: the trace run differs from a fresh trace of the second inputs"


@pytest.mark.parametrize("name", FLIP_CASES)
def test_flip_hits_without_fix(name):
    """The upstream bug is real: stock Thunder reuses the stale trace."""
    c = _case("nofix", name)
    if name in STOCK_MISSES:
        assert not c["hit"], f"{name}: documented as a stock miss (static pins)"
        return
    assert c["hit"], f"{name}: stock Thunder was expected to hit (the bug)"
    assert "error" in c or not c["result_ok"] or not c["trace_ok"], (
        f"{name}: stale hit but nothing wrong?"
    )


@pytest.mark.parametrize("name", KEEP_CASES)
def test_keep_hits_with_fix(name):
    c = _case("fix", name)
    assert "error" not in c, c
    assert c["hit"] and c["misses"] == 1, (
        f"{name}: over-specialised, a call keeping every decision missed"
    )
    assert c["result_ok"], f"{name}: result differs from eager"


@pytest.mark.parametrize("name", KEEP_CASES)
def test_keep_cases_on_stock(name):
    c = _case("nofix", name)
    assert c["hit"] is (name not in STOCK_MISSES), (name, c.get("hit"))


@pytest.mark.parametrize("name", FLIP_CASES + KEEP_CASES)
def test_fix_keeps_computation_inputs(name):
    """Recording must not change the trace: the computation takes the inputs it takes on
    stock Thunder (reading `TensorProxy.shape` while tracing binds `prims.shape`, which made
    every input tensor, also an unused one, a computation input; see unused_alias_halves)."""
    fixed, stock = _case("fix", name), _case("nofix", name)
    assert fixed["inputs"] == stock["inputs"], (name, fixed["inputs"], stock["inputs"])


def test_prologue_lists_replayed_decisions():
    c = _case("fix", "h_eq_keep")
    pro = c["prologue"]
    assert "check_symbolic_decisions(" in pro
    assert f"# {FIX}: decisions taken while tracing" in pro
    assert "== 2) is True" in pro  # bool(<size> == 2) is True
    c = _case("fix", "n_int_then_int")
    assert "is int" in c["prologue"]  # the number input's type is checked
    c = _case("fix", "alias_same_tensor_keep")
    # The alias handling's shape comparison, replayed (x2's sizes == x1's).
    assert re.search(r"#   i\d+ == i\d+ == True  \(alias handling\)", c["prologue"]), c["prologue"]


def test_apply_is_idempotent():
    _require_thunder_026()
    rep = _probe("fix")
    assert rep["status"] == [f"{FIX} (lightning-thunder 0.2.6): applied"]
    idem = rep["idempotence"]
    assert idem["same_patches"], "a second apply/install wrapped the patches again"
    assert idem["status"] == rep["status"]
    assert idem["active"].get(FIX) == "applied"


def test_recording_failure_pins_everything():
    _require_thunder_026()
    rep = _probe("fix")["broken_recording"]
    # h_eq_keep's second call keeps every decision, but the log is incomplete: pinned, miss.
    assert not rep["keep"]["hit"] and rep["keep"]["result_ok"], rep
    # The same sizes again still hit.
    assert rep["same"]["hit"] and rep["same"]["result_ok"], rep


def test_registration_and_versions():
    from packaging.version import Version

    fix = fixes.all_fixes()[FIX]
    assert fix.package == "lightning-thunder"
    assert fix.upstream.endswith("lightning-thunder/issues/1525")
    assert fix.covers(Version("0.2.6"))
    for v in ("0.2.5", "0.2.7", "0.3.0"):
        assert not fix.covers(Version(v))
    assert not fix.already_fixed(Version("0.2.6"))


def test_uncovered_version_raises(monkeypatch):
    """Applying on another Thunder version refuses before installing anything."""
    from packaging.version import Version

    from fixes import _registry

    monkeypatch.setattr(_registry, "_STATUS", {})
    monkeypatch.setattr(_registry, "installed_version", lambda package: Version("0.2.7"))
    assert fixes.state_for(FIX).state == "uncovered"
    with pytest.raises(fixes.FixError, match="0.2.7"):
        fixes.apply([FIX])
    assert FIX not in _registry._STATUS
