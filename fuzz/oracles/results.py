"""Result oracle: a lane's call must produce what eager produced.

Floats are compared with the tolerances below (compilers reorder reductions and fuse
ops, so bit equality is not expected); integers and bools exactly; NaN equals NaN.
"""

from __future__ import annotations

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


# The kind a wrong value is filed under, per lane (EXIR only computes values at run time).
RESULT_KIND = {"thunder": "thunder.wrong-result", "exir": "exir.runtime-result"}


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
_WHO = {"thunder": "thunder", "exir": "the runtime"}


def compare_results(
    lane: str,
    expected: CallRecord,
    actual: CallRecord,
    stage: str,
    device: str = "cpu",
    check_inputs: bool = False,
) -> list[Divergence]:
    """A lane's call against eager's: the exception (both raised: agreed; only eager:
    `RESULT_KIND[lane]`; only the lane: `<lane>.crash`), then the outputs. With
    `check_inputs`, also the inputs after the call, for lanes whose records carry the
    mutations they made (the EXIR runtime returns them as outputs; Thunder's are judged
    with aliasing, fuzz.oracles.aliasing)."""
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
                f"{lane}.crash",
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
            out.append(Divergence(wrong, stage, f"output {i}: {why}", device, {"output": i}))
    if check_inputs:
        for j, (e, a) in enumerate(zip(expected.inputs_after, actual.inputs_after)):
            if isinstance(e, torch.Tensor) and (why := value_mismatch(e, a)) is not None:
                out.append(
                    Divergence(
                        wrong,
                        stage,
                        f"input {j} after the call (mutation): {why}",
                        device,
                        {"input": j},
                    )
                )
    return out
