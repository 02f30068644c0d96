"""Result oracle: a lane's call must produce what eager produced.

Floats are compared with the tolerances below (compilers reorder reductions and fuse
ops, so bit equality is not expected); integers and bools exactly; NaN equals NaN.

A float16 or bfloat16 output outside its tolerance is judged once more against the call
computed in float64 (eager's `reference64`), as torch._dynamo's accuracy check does: it
is no divergence when eager itself is within a few tolerances of the float64 value
(`ROUNDING_DOMINATED`) and the lane's error is at most `REFEREE_FACTOR` times eager's
(root mean square over the output), plus a noise floor: a tenth of the dtype's atol, or
one rounding step of the dtype at the output's scale when that is larger (a six-element
float16 output near 2, where a step is 0.002, was judged with a floor of 0.0001). A
lowering that runs a fused half-precision op as several rounded steps (a decomposed
logsumexp, then `x + it` cancelling) is as imprecise as eager is, just differently; one
that loses precision eager keeps (a cumulative sum added in float16) or computes
something else is several times worse. The divergence then stays, marked
`within_eager_error` in its data, and the case runner sets it aside and counts it
(fuzz.case_runner).

A mismatch of shape, or of an exact (int or bool) output, is judged against the float64
call too: when eager's own output has another shape or other values in float64, eager's
result is decided by rounding (a layer-normed row's mean, zero up to rounding, counted by
`nonzero(v > 0)`), and the lane rounding the other way is no bug. The divergence is
marked `ill_conditioned`, set aside and counted the same way. So is a float32 or float64
mismatch where eager's own output is more than `ROUNDING_DOMINATED` tolerances from the
float64 call's: a `torch.cond(v.sum() > 0, ...)` over a group-normed `v` (a sum that is
zero up to rounding) takes a branch that float64, or a runtime kernel summing in another
order, need not take. Half-precision outputs keep their own judgement (above): their
eager is often that far from float64 through rounding alone.
"""

from __future__ import annotations

from typing import Any

import torch

from fuzz.divergence import Divergence
from fuzz.observe import CallRecord

# dtype -> (rtol, atol). Wider than torch.testing's defaults for float32 because a
# fused kernel may sum in a different order than eager.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


LOW_PRECISION = (torch.float16, torch.bfloat16)
REFEREE_FACTOR = 2.0
# How far from float64 eager itself may be, in tolerances, for the referee to judge.
# Past one tolerance the output is dominated by the dtype's rounding (the bfloat16
# product of 36 factors each rounded to bfloat16: eager 3.5 % from float64, where Thunder,
# multiplying in float32, is 5 %: both are that far only through the rounded factors).
# Far past it, float64 computes something else (another branch) and eager's error is no
# scale at all.
ROUNDING_DOMINATED = 4.0


def within_eager_error(expected: Any, actual: Any, reference: Any) -> bool:
    """Whether a half-precision `actual` is as close to the float64 `reference` as eager's
    `expected` is (module docstring). False for anything it cannot judge."""
    if not (
        isinstance(expected, torch.Tensor)
        and isinstance(actual, torch.Tensor)
        and isinstance(reference, torch.Tensor)
        and expected.dtype in LOW_PRECISION
        and actual.dtype == expected.dtype
        and expected.shape == actual.shape == reference.shape
        and expected.numel() > 0
    ):
        return False
    ref = reference.detach().cpu().to(torch.float64)
    exp, act = expected.to(torch.float64), actual.to(torch.float64)
    finite = torch.isfinite(ref)
    if not (torch.equal(finite, torch.isfinite(exp)) and torch.equal(finite, torch.isfinite(act))):
        return False
    e_off, a_off = exp[~finite], act[~finite]  # inf and NaN: the same where float64 has them
    if not bool(((e_off == a_off) | (e_off.isnan() & a_off.isnan())).all()):
        return False
    rtol, atol = TOLERANCES[expected.dtype]
    ref, exp, act = ref[finite], exp[finite], act[finite]
    if ref.numel() == 0:
        return True

    def rms(t: torch.Tensor) -> float:
        return float(t.square().mean().sqrt())

    eager_error, lane_error = rms(exp - ref), rms(act - ref)
    if eager_error > ROUNDING_DOMINATED * (atol + rtol * rms(ref)):
        return False  # eager is far from float64 itself: no scale to judge by
    # Noise floor: a tenth of atol, or one rounding step (eps) at the output's scale,
    # whichever is larger. Over a few elements eager can be closer than half a step by
    # luck, and a lowering that rounds one intermediate more than eager is a step off.
    floor = max(atol / 10, torch.finfo(expected.dtype).eps * rms(ref))
    return lane_error <= REFEREE_FACTOR * eager_error + floor


# The kind a wrong value is filed under, per lane (EXIR only computes values at run time;
# "exir-edge" is its edge program run in eager where the runtime gives no result,
# fuzz/backends/exir/edge_run.py).
RESULT_KIND = {
    "thunder": "thunder.wrong-result",
    "exir": "exir.runtime-result",
    "exir-edge": "exir.edge-result",
    "xnnpack": "xnnpack.runtime-result",
    "thunderfx": "thunderfx.wrong-result",
    "thunderprims": "thunderprims.wrong-result",
}
# The kind a lane raising where eager returned is filed under, when not `<lane>.crash`:
# the edge program raising is a wrong result of the lowering (no process died, no
# runtime ran), kept apart from the runtime's crashes and the patterns that match them.
CRASH_KIND = {"exir-edge": "exir.edge-result"}


def value_mismatch(expected, actual) -> str | None:
    """Why `actual` is not `expected` (one leaf), or None when they agree."""
    if isinstance(expected, torch.Tensor) != isinstance(actual, torch.Tensor):
        return f"type {type(actual).__name__}, expected {type(expected).__name__}"
    if not isinstance(expected, torch.Tensor):
        if isinstance(expected, float) or isinstance(actual, float):
            if not torch.isclose(
                torch.tensor(float(actual)),
                torch.tensor(float(expected)),
                rtol=1e-6,
                atol=1e-7,
                equal_nan=True,
            ):
                return f"value {actual!r}, expected {expected!r}"
            return None
        return None if expected == actual else f"value {actual!r}, expected {expected!r}"
    if expected.dtype != actual.dtype:
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if expected.shape != actual.shape:
        return f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    if expected.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[expected.dtype]
        close = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        if not bool(close.all()):
            bad = (~close).nonzero()[0].tolist()
            return (
                f"values differ (rtol={rtol}, atol={atol}) at {bad}: "
                f"{actual[tuple(bad)].item()!r} vs eager {expected[tuple(bad)].item()!r}"
            )
        return None
    if not torch.equal(actual, expected):
        return "values differ (exact dtype)"
    return None


# How a lane's side of a call is named in messages.
_WHO = {
    "thunder": "thunder",
    "exir": "the runtime",
    "exir-edge": "the edge program",
    "xnnpack": "the runtime (XNNPACK delegate)",
    "thunderfx": "thunderfx",
    "thunderprims": "thunder (its decompositions)",
}


def compare_results(
    lane: str,
    expected: CallRecord,
    actual: CallRecord,
    stage: str,
    device: str = "cpu",
    check_inputs: bool = False,
) -> list[Divergence]:
    """A lane's call against eager's: the exception (both raised: agreed; only eager:
    `RESULT_KIND[lane]`; only the lane: `CRASH_KIND[lane]`, else `<lane>.crash`), then the
    outputs. With `check_inputs`, also the inputs after the call, for lanes whose records
    carry the mutations they made (the EXIR runtime returns them as outputs; Thunder's are
    judged with aliasing, fuzz.oracles.aliasing)."""
    wrong, who = RESULT_KIND[lane], _WHO.get(lane, lane)
    if expected.error and actual.error:
        return []  # both refused the call; exception text is backend-specific
    if expected.error:
        return [
            Divergence(
                wrong, stage, f"eager raised {expected.error!r}, {who} returned a result", device
            )
        ]
    if actual.error:
        return [
            Divergence(
                CRASH_KIND.get(lane, f"{lane}.crash"),
                stage,
                f"{who} raised {actual.error}",
                device,
                {"error": actual.error},
            )
        ]
    if len(expected.outputs) != len(actual.outputs):
        return [
            Divergence(
                wrong,
                stage,
                f"{len(actual.outputs)} outputs, eager has {len(expected.outputs)}",
                device,
            )
        ]
    out = []
    for i, (e, a) in enumerate(zip(expected.outputs, actual.outputs)):
        if (why := value_mismatch(e, a)) is not None:
            data = {"output": i} | _referee(expected, "outputs", i, e, a)
            out.append(Divergence(wrong, stage, f"output {i}: {why}", device, data))
    if check_inputs:
        for j, (e, a) in enumerate(zip(expected.inputs_after, actual.inputs_after)):
            if isinstance(e, torch.Tensor) and (why := value_mismatch(e, a)) is not None:
                out.append(
                    Divergence(
                        wrong,
                        stage,
                        f"input {j} after the call (mutation): {why}",
                        device,
                        {"input": j} | _referee(expected, "inputs_after", j, e, a),
                    )
                )
    return out


def _referee(expected: CallRecord, field: str, k: int, e: Any, a: Any) -> dict[str, bool]:
    """`referee` of a mismatching output or input, against the same leaf of the call in
    float64 (computed only for a mismatch the referee can judge)."""
    if not _judgeable(e, a):
        return {}
    reference = expected.reference64() if expected.reference64 is not None else None
    values = getattr(reference, field, None) if reference is not None else None
    if values is None or len(values) != len(getattr(expected, field)):
        return {}
    return referee(e, a, values[k])


def referee(e: Any, a: Any, reference: Any) -> dict[str, bool]:
    """{"within_eager_error": True} when the float64 `reference` judges a half-precision
    mismatch no worse than eager; {"ill_conditioned": True} when eager's own shape or
    exact values are not those of the float64 call (module docstring); else {} (also
    when there is no reference)."""
    if not _judgeable(e, a):
        return {}
    if ill_conditioned(e, reference):
        return {"ill_conditioned": True}
    if e.dtype in LOW_PRECISION and within_eager_error(e, a, reference):
        return {"within_eager_error": True}
    return {}


def _judgeable(e: Any, a: Any) -> bool:
    """Whether the referee judges this mismatch: a float tensor, an exact one, or one the
    lane returned in another shape."""
    if not isinstance(e, torch.Tensor):
        return False
    reshaped = isinstance(a, torch.Tensor) and a.shape != e.shape
    return e.is_floating_point() or _exact(e) or reshaped


def ill_conditioned(expected: torch.Tensor, reference: Any) -> bool:
    """Whether eager's output depends on rounding: the float64 call gives it another shape
    (a count of `v > 0` over values that are zero up to rounding, fed to `nonzero`), other
    exact values (an int or bool output: `(v > 0).sum()`), or, for a float32 or float64
    output, values more than `ROUNDING_DOMINATED` tolerances away (another branch)."""
    if not isinstance(reference, torch.Tensor):
        return False
    if reference.shape != expected.shape:
        return True
    if expected.dtype in (torch.float32, torch.float64):
        rtol, atol = TOLERANCES[expected.dtype]
        return not torch.allclose(
            expected.detach().cpu().to(torch.float64),
            reference.detach().cpu().to(torch.float64),
            rtol=ROUNDING_DOMINATED * rtol,
            atol=ROUNDING_DOMINATED * atol,
            equal_nan=True,
        )
    same_dtype = reference.dtype == expected.dtype
    return _exact(expected) and same_dtype and not torch.equal(reference, expected)


def _exact(t: torch.Tensor) -> bool:
    """An int or bool tensor: compared exactly, no tolerance."""
    return not (t.is_floating_point() or t.is_complex())
