"""Aliasing oracle: storage sharing and input mutation must match eager.

Eager semantics are the contract: if eager returns a view of an input, a compiled
program that returns a copy breaks code that writes through the output (and vice
versa); an in-place op on an input must leave the same values in the caller's tensor.
"""

from __future__ import annotations

from fuzz.divergence import Divergence
from fuzz.observe import CallRecord
from fuzz.oracles.results import value_mismatch


def compare_aliasing(
    lane: str,
    expected: CallRecord,
    actual: CallRecord,
    stage: str,
    device: str = "cpu",
    check_sharing: bool = True,
) -> list[Divergence]:
    if expected.error or actual.error:
        return []  # the result oracle reports failed calls
    out = []
    for j, (e, a) in enumerate(zip(expected.inputs_after, actual.inputs_after)):
        if (why := value_mismatch(e, a)) is not None:
            out.append(
                Divergence(
                    f"{lane}.aliasing",
                    stage,
                    f"input {j} after the call differs from eager (mutation): {why}",
                    device,
                    {"input": j},
                )
            )
    if check_sharing and expected.aliases != actual.aliases:
        missing = sorted(expected.aliases - actual.aliases)
        extra = sorted(actual.aliases - expected.aliases)
        out.append(
            Divergence(
                f"{lane}.aliasing",
                stage,
                f"storage sharing differs from eager: missing {missing}, unexpected {extra}",
                device,
                {
                    "missing": [list(map(list, p)) for p in missing],
                    "unexpected": [list(map(list, p)) for p in extra],
                },
            )
        )
    return out
