"""Each generic oracle fires on a real bad observation and stays silent on a good one."""

from __future__ import annotations

import pytest
import torch

from fuzz.backends.thunder.oracles.cache import normalize_trace, unsound_hit
from fuzz.observe import observe_call
from fuzz.oracles.aliasing import compare_aliasing
from fuzz.oracles.results import compare_results
from fuzz.tensors import copy_args


def _pair(reference_fn, lane_fn, *args):
    return observe_call(reference_fn, copy_args(args)), observe_call(lane_fn, copy_args(args))


def kinds(divergences):
    return sorted(d.kind for d in divergences)


def test_results_silent_when_equal_within_tolerance():
    x = torch.randn(4, 5)
    ref, got = _pair(lambda t: (t.sum(0),), lambda t: (t.sum(0) + 1e-7,), x)
    assert compare_results("thunder", ref, got, "call[0]") == []


def test_results_fire_on_values_shape_dtype_and_exceptions():
    x = torch.randn(4, 5)
    cases = {
        "values": (lambda t: (t * 2,), lambda t: (t * 2.01,)),
        "shape": (lambda t: (t,), lambda t: (t.reshape(-1),)),
        "dtype": (lambda t: (t,), lambda t: (t.double(),)),
        "count": (lambda t: (t, t), lambda t: (t,)),
    }
    for what, (ref_fn, lane_fn) in cases.items():
        found = compare_results("thunder", *_pair(ref_fn, lane_fn, x), "call[1]")
        assert kinds(found) == ["thunder.wrong-result"], what
        assert found[0].stage == "call[1]"


def test_results_classify_exceptions():
    x = torch.randn(3)

    def boom(t):
        raise RuntimeError("backend exploded")

    assert kinds(compare_results("exir", *_pair(lambda t: t, boom, x), "s")) == ["exir.crash"]
    assert kinds(compare_results("exir", *_pair(boom, lambda t: t, x), "s")) == [
        "exir.runtime-result"
    ]
    assert compare_results("exir", *_pair(boom, boom, x), "s") == []


def test_aliasing_fires_when_a_view_becomes_a_copy():
    x = torch.randn(3, 4)
    ref, got = _pair(lambda t: (t.t(),), lambda t: (t.t().clone(),), x)
    found = compare_aliasing("thunder", ref, got, "call[0]")
    assert kinds(found) == ["thunder.aliasing"] and "missing" in found[0].details


def test_aliasing_fires_when_a_copy_becomes_a_view_or_outputs_merge():
    x = torch.randn(3, 4)
    assert kinds(
        compare_aliasing("thunder", *_pair(lambda t: (t + 0,), lambda t: (t,), x), "c")
    ) == ["thunder.aliasing"]
    ref, got = _pair(lambda t: (t * 2, t * 3), lambda t: ((y := t * 2), y[:]), x)
    assert kinds(compare_aliasing("thunder", ref, got, "c")) == ["thunder.aliasing"]


def test_aliasing_fires_on_lost_input_mutation():
    x = torch.randn(3)
    ref, got = _pair(lambda t: (t.add_(1),), lambda t: (t + 1,), x)
    found = compare_aliasing("thunder", ref, got, "call[0]", check_sharing=False)
    assert kinds(found) == ["thunder.aliasing"] and "mutation" in found[0].details


def test_aliasing_silent_on_same_semantics():
    base = torch.randn(2, 6)
    a, b = base[:, :3], base[:, 3:]
    ref, got = _pair(lambda p, q: (p.add_(q), q.t()), lambda p, q: (p.add_(q), q.t()), a, b)
    assert compare_aliasing("thunder", ref, got, "c") == []


def test_copy_args_preserves_identity_views_and_layout():
    base = torch.randn(2, 6)
    x = torch.randn(3, 2).t()
    args = (base[:, :3], base[:, 3:], x, x)
    copied = copy_args(args)
    assert copied[2] is copied[3] and not copied[2].is_contiguous()
    assert copied[0].untyped_storage().data_ptr() == copied[1].untyped_storage().data_ptr()
    assert copied[0].untyped_storage().data_ptr() != base.untyped_storage().data_ptr()
    assert all(torch.equal(a, b) for a, b in zip(args, copied))


TRACE_A = """
def computation(a, b):
  # a: "cpu f32[[IntegerProxy name=i0, value=2]]"
  t15 = ltorch.add(a, b, alpha=1)  # t15: "cpu f32[...value=2...]"
    # i3 = prims.eq(i1, 1)  # i3: "bool False"
    # t14 = prims.broadcast_in_dim(b, (i0, i1), (1,))
    # t15 = prims.add(a, t14)
  return (t15,)
"""


def test_trace_normalization_ignores_proxy_names_and_traced_values():
    renamed = (
        TRACE_A.replace("t15", "t99")
        .replace("t14", "t7")
        .replace("i3", "i8")
        .replace("value=2", "value=8")
        .replace('"bool False"', '"bool True"')
    )
    assert normalize_trace(TRACE_A) == normalize_trace(renamed)
    assert unsound_hit(TRACE_A, renamed, "call[1]", "cpu") is None


def test_trace_normalization_keeps_dtypes_named_like_a_proxy():
    """A number proxy may be named like a dtype (`i64`, `f32`): renaming it must leave the
    dtypes in the types alone. Found by a nightly (a cached trace with a proxy `i64` and an
    `i64` tensor, fresh trace numbered one off, reported as an unsound hit)."""
    trace = """
def computation(a):
  # a: "cpu f32[[IntegerProxy name=i0, value=2]]"
  t1 = ltorch.arange(1, None, 1, device=None, dtype=None)  # t1: "cpu i64[1]"
    # {eq} = prims.eq(i0, 1)  # {eq}: "bool False"
    # {f} = prims.convert_element_type(i0, float)  # {f}: "float 2.0"
  t2 = ltorch.mul(a, {f})  # t2: "cpu f32[...value=2...]"
  return (t1, t2)
"""
    cached = trace.format(eq="i64", f="f32")  # proxies numbered like two dtypes
    fresh = trace.format(eq="i65", f="f33")
    assert normalize_trace(cached) == normalize_trace(fresh)
    assert unsound_hit(cached, fresh, "call[3]", "cpu") is None
    # the dtypes still count: an i32 arange is another trace
    assert unsound_hit(cached, fresh.replace("cpu i64[1]", "cpu i32[1]"), "call[3]", "cpu")


@pytest.mark.parametrize(
    "change",
    [
        # a dtype change (annotations keep device, dtype and rank)
        ('t15: "cpu f32[...value=2...]"', 't15: "cpu f64[...value=2...]"'),
        # an op change (operator names are never renamed: log2 is not log10)
        ("# t15 = prims.add(a, t14)", "# t15 = prims.sub(a, t14)"),
        # a changed scalar computation feeding a tensor op
        ("# i3 = prims.eq(i1, 1)", "# i3 = prims.eq(i1, 2)"),
    ],
    ids=["dtype", "op", "scalar"],
)
def test_unsound_hit_fires_on_a_changed_dtype_op_or_scalar_computation(change):
    other = TRACE_A.replace(*change)
    assert other != TRACE_A
    found = unsound_hit(TRACE_A, other, "call[1]", "cpu")
    assert found is not None and found.data["trace"] == "initial", change


def test_unsound_hit_compares_the_execution_trace_too():
    same_initial = (TRACE_A, TRACE_A)
    other_final = (TRACE_A, TRACE_A.replace("ltorch.add", "torch.add"))
    found = unsound_hit(same_initial, other_final, "call[2]", "cpu")
    assert found is not None and found.data["trace"] == "execution"
    assert unsound_hit(same_initial, same_initial, "call[2]", "cpu") is None


def test_unsound_hit_fires_when_the_broadcast_differs():
    other = TRACE_A.replace(
        "# t15 = prims.add(a, t14)",
        "# t16 = prims.broadcast_in_dim(a, (i0, i2), (0, 1))\n    # t15 = prims.add(t16, t14)",
    )
    found = unsound_hit(TRACE_A, other, "call[1]", "cpu")
    assert found is not None and found.kind == "thunder.unsound-hit"
    assert "+%5 = prims.broadcast_in_dim(%0, " in found.data["diff"]  # a (%0) is broadcast


def _half_record(fn, x):
    """Eager's record of `fn` on a float16 `x`, with its float64 reference attached."""
    from fuzz.backends.eager import float64_call

    record = observe_call(fn, copy_args((x,)))
    record.reference64 = float64_call(fn, (x,))
    return record


def test_a_float32_branch_decided_by_rounding_is_ill_conditioned_and_a_stable_one_is_not():
    """A fixes-on campaign's false alarm: `torch.cond(v.sum() > 0, ...)` over a group-normed
    `v`, whose sum is zero up to rounding; the runtime took the other branch. When the
    float64 call departs from float32 eager by more than ROUNDING_DOMINATED tolerances,
    the lane's float32 mismatch is `ill_conditioned`; a lane wrong on a call whose eager
    agrees with float64 stays a divergence."""

    def branch(t):
        v = torch.group_norm(t, 1, eps=0.001)
        return (v * 2 if v.sum() > 0 else -v,)

    x = None
    for seed in range(200):  # a call whose float32 and float64 branches differ
        torch.manual_seed(seed)
        candidate = torch.randn(1, 3)
        if bool(branch(candidate)[0][0, 0] > 0) != bool(branch(candidate.double())[0][0, 0] > 0):
            x = candidate
            break
    assert x is not None, "no rounding-decided branch in 200 seeds"
    expected = _half_record(branch, x)  # float32 here: the record with its float64 call
    lane = observe_call(lambda t: (branch(t.double())[0].float(),), (x,))
    found = compare_results("exir", expected, lane, "call[0]")
    assert len(found) == 1 and found[0].data.get("ill_conditioned"), found

    stable = _half_record(lambda t: (t * 2,), x)
    lane = observe_call(lambda t: (t * 2 + 1e-3,), (x,))
    found = compare_results("exir", stable, lane, "call[0]")
    assert found and not any(d.data.get("ill_conditioned") for d in found)


def test_a_half_mismatch_as_imprecise_as_eager_is_set_aside_and_a_worse_one_is_not():
    """The float64 referee (fuzz.oracles.results.within_eager_error). A lane that runs
    `x + logsumexp(2 * x, 0)` in float16 steps, its sum added in float16 (the EXIR
    baseline's form: the decomposed logsumexp on the portable kernels, then `x + it`
    cancelling), differs from eager past the float16 tolerance, but is no further from
    the float64 value than eager is. A float16 running sum that stops growing, or one
    wrong element, is many times worse."""
    torch.manual_seed(3)
    x = torch.randn(5, 4, 7, dtype=torch.float16)

    def fused(t):
        return (t + torch.logsumexp(2 * t, 0),)

    def stepwise(t):
        u = 2 * t
        m = u.amax(0)
        e = (u - m).exp()
        acc = e[0]
        for i in range(1, e.shape[0]):
            acc = acc + e[i]
        return (t + (acc.log() + m),)

    expected = _half_record(fused, x)
    imprecise = compare_results("exir", expected, observe_call(stepwise, (x,)), "call[0]")
    assert imprecise and all(d.data.get("within_eager_error") for d in imprecise)

    def one_wrong(t):
        out = fused(t)[0].clone()
        out[0, 0, 0] += 1.0
        return (out,)

    found = compare_results("exir", expected, observe_call(one_wrong, (x,)), "call[0]")
    assert found and not any(d.data.get("within_eager_error") for d in found)

    def half_cumsum(t):  # added in float16, as the portable kernel does
        out, acc = torch.empty_like(t), torch.zeros_like(t[0])
        for i in range(t.shape[0]):
            acc = acc + t[i]
            out[i] = acc
        return (out,)

    ones = torch.ones(3000, 1, dtype=torch.float16)
    cumsum = _half_record(lambda t: (torch.cumsum(t, 0),), ones)
    found = compare_results("exir", cumsum, observe_call(half_cumsum, (ones,)), "call[0]")
    assert found and not any(d.data.get("within_eager_error") for d in found)


def test_a_small_half_output_one_rounding_step_off_is_noise_and_three_steps_are_not():
    """Over a six-element float16 output near 2 (a step there is 2**-9), eager can be much
    closer to float64 than half a step by luck; a lane one step off on one element (a
    lowering that rounds an intermediate once more than eager: a Thunder baseline night's
    einsum -> linear -> matmul chain, 3.1 times eager's error) is noise. Three steps off
    on every element is not."""
    from fuzz.oracles.results import REFEREE_FACTOR, within_eager_error

    base = torch.tensor([[2.0, -2.046875, 2.5], [2.203125, -3.0, 2.05078125]], dtype=torch.float64)
    ref64 = base + 1e-5  # eager (base, in float16) is 1e-5 from float64
    eager = ref64.half()
    assert torch.equal(eager.double(), base)
    one_step = eager.clone()
    one_step[0, 1] -= 2**-9
    lane_error = float((one_step.double() - ref64).square().mean().sqrt())
    assert lane_error > REFEREE_FACTOR * 1e-5 + 1e-3 / 10, "a floor of atol/10 would flag it"
    assert within_eager_error(eager, one_step, ref64)
    assert not within_eager_error(eager, eager + 3 * 2**-9, ref64)


def test_a_rounding_dominated_half_output_is_judged_and_a_far_lane_still_flagged():
    """The fixes-on Thunder campaign's false alarm (seed 2026): the bfloat16 product of 36
    factors, each a bfloat16-rounded square root. Eager (39936) multiplies in bfloat16,
    Thunder in float32 (40704, the product of the rounded factors rounded once); the
    float64 program (38595.3) never rounds the factors. Eager is 3.5 % from float64, past
    one bfloat16 tolerance, and Thunder 5.5 %: the rounding of the factors, not a bug. A
    lane 25 % off is still flagged, and an eager output far past a few tolerances
    (another branch in float64) still leaves the mismatch standing."""
    from fuzz.oracles.results import within_eager_error

    ref64 = torch.tensor(38595.29244408307, dtype=torch.float64)
    eager = torch.tensor(39936.0, dtype=torch.bfloat16)
    assert within_eager_error(eager, torch.tensor(40704.0, dtype=torch.bfloat16), ref64)
    assert not within_eager_error(eager, torch.tensor(48384.0, dtype=torch.bfloat16), ref64)
    far = torch.tensor(52224.0, dtype=torch.bfloat16)  # 35 % from float64
    assert not within_eager_error(far, far + 256, ref64)


def test_the_referee_judges_only_what_it_can():
    from fuzz.oracles.results import within_eager_error

    e = torch.tensor([1.0, 2.0], dtype=torch.float16)
    ref64 = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert within_eager_error(e, e, ref64)
    assert not within_eager_error(e.float(), e.float(), ref64)  # float32: tolerances alone
    assert not within_eager_error(e, e[:1], ref64)  # shapes differ
    nan = torch.tensor([1.0, float("nan")], dtype=torch.float16)
    assert not within_eager_error(e, nan, ref64)  # NaN where float64 has a number
    far = torch.tensor([1.5, 2.0], dtype=torch.float16)
    assert not within_eager_error(far, far, ref64)  # eager itself far from float64
    # No float64 reference (inputs that share storage, or eager ran without one): kept.
    record = observe_call(lambda t: (t * 3,), (e,))
    assert compare_results("exir", record, observe_call(lambda t: (t * 3.01,), (e,)), "c")[
        0
    ].data == {"output": 0}


def test_a_shape_or_count_that_rounding_decides_is_set_aside_and_a_stable_one_is_not():
    """The nightly's false alarm (seed 2): the mean of a layer-normed row is zero up to
    rounding, and `nonzero(v > 0)` counts 1 row in float32 eager, 2 in float64 and at the
    ExecuTorch runtime. When the float64 call gives eager's output another shape or other
    exact values, the lane's mismatch is `ill_conditioned` (set aside, counted); when eager
    and float64 agree, the same mismatch stays a divergence."""

    def rows(t):
        v = torch.nn.functional.layer_norm(t, t.shape[-1:]).mean(1, keepdim=True).abs()
        return (t.new_ones(torch.nonzero(v > 0).shape[0]), (v > 0).sum())

    x = None
    for seed in range(200):  # a call whose float32 and float64 counts differ
        torch.manual_seed(seed)
        candidate = torch.randn(2, 5)
        wide = rows(candidate.double())
        if rows(candidate)[0].shape != wide[0].shape:
            x = candidate
            break
    assert x is not None, "no rounding-decided count in 200 seeds"
    expected = _half_record(rows, x)  # float32 here: the record with its float64 call
    wide = rows(x.double())
    lane = observe_call(lambda t: (torch.ones(wide[0].shape[0]), wide[1]), (x,))
    found = compare_results("exir", expected, lane, "call[0]")
    assert len(found) == 2 and all(d.data.get("ill_conditioned") for d in found), found

    stable = _half_record(lambda t: (t.new_ones(torch.nonzero(t > 0).shape[0]),), x)
    lane = observe_call(lambda t: (torch.ones(t.numel() + 1),), (x,))
    found = compare_results("exir", stable, lane, "call[0]")
    assert found and not any(d.data.get("ill_conditioned") for d in found)
