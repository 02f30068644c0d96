"""Diagnostic repairs: Thunder with one registered upstream bug repaired, for one re-run.

A divergence that goes away when one upstream bug is repaired, and only then, is that bug,
whatever program showed it: the observation a registry pattern needs for a wrong result,
whose details say only which value differs. The lane's `annotate` step re-runs the call
sequence under each repair (fuzz/backends/thunder/lane.py) and records the repair a
divergence does not survive as data["repaired_by"]; the corpus case of the bug matches on
it ({"data": {"repaired_by": "number-rounding"}}).

A repair is never active while a result is judged: `repaired(name)` installs it for the
re-run and restores Thunder exactly on leaving (tests/stacks/thunder/test_thunder_repairs.py).
It is ours, not a fix: the stacks under test stay stock, and fixes/ holds only the fixes
the project was started for. Each repair is a `fixes._patching.PatchSet` of kind "repair"
(`REPAIRS`, the mechanism of the fixes and the speedups), gated on the source of the
upstream function it wraps (`UPSTREAM_SOURCES`): on another Thunder it is skipped (it
changes nothing, so no divergence is marked repaired by it), and while it is installed it
is recorded with the other patch sets (fuzz.speedups.compat_state).

number-rounding: Thunder 0.2.6 computes `math.ceil`/`math.floor` of a float number in
int (`elementwise_type_promotion` returns `(int, int)` for NUMBER_TO_INT), so the float is
truncated before the ceil: under cache="symbolic values" the trace holds
`torch.arange(0, 3, 2)` as one element instead of two
(corpus/thunder_arange_step_length_truncated.py). Upstream computes in float and
converts the result (Lightning-AI/lightning-thunder#2779, thunder/core/utils.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from fixes._patching import Part, Patch, PatchSet, unpatched
from fixes.compat_thunder_named_tensor import import_thunder

# The upstream functions a repair wraps -> source_digest of their sources (0.2.6).
UPSTREAM_SOURCES = {"number-rounding": "fb636aad94c7cba3"}  # utils.elementwise_type_promotion


class Use:
    """How often a repair computed something other than stock Thunder would (`changed`):
    a divergence that goes away under a repair that never changed anything went away for
    another reason (a flaky one), not because of the repair."""

    def __init__(self) -> None:
        self.changed = 0


_uses: dict[str, Use] = {}  # repair -> the Use of its current `repaired` block


def _utils():
    import_thunder()
    import thunder.core.utils as utils

    return utils


def _upstream_promotion() -> tuple:
    return (unpatched(_utils(), "elementwise_type_promotion"),)


def _number_rounding() -> list[Patch]:
    utils = _utils()
    kinds = utils.ELEMENTWISE_TYPE_PROMOTION_KIND
    use = _uses["number-rounding"]

    def make(original):
        def promotion(*args, type_promotion_kind):
            computation, result = original(*args, type_promotion_kind=type_promotion_kind)
            if type_promotion_kind is kinds.NUMBER_TO_INT and (computation, result) == (int, int):
                # A float number is rounded in float (what upstream does since #2779).
                if original(*args, type_promotion_kind=kinds.DEFAULT)[0] is float:
                    use.changed += 1
                    return float, int
            return computation, result

        return promotion

    return [Patch.wrap(utils, "elementwise_type_promotion", make)]


# name -> its patch set (installed only inside `repaired(name)`)
REPAIRS: dict[str, PatchSet] = {
    "number-rounding": PatchSet(
        "thunder-repair:number-rounding",
        "repair",
        [Part("number-rounding", _number_rounding, upstream=_upstream_promotion)],
        UPSTREAM_SOURCES,
    ),
}


@contextlib.contextmanager
def repaired(name: str) -> Iterator[Use]:
    """Thunder with the repair `name` installed, restored on leaving; yields its Use."""
    patches = REPAIRS[name]
    use = _uses[name] = Use()
    patches.install()
    try:
        yield use
    finally:
        patches.uninstall()
