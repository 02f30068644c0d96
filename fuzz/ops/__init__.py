"""The op catalogue: every op the generator can use, described once as data.

To add an op, add an `OpSpec` to the module of its family (or a new module listed
here): its operand constraint, its symbolic shape rule and its source template. The
generator, the renderer, coverage figures and the catalogue tests all derive from it.
"""

from fuzz.ops import (
    branches,
    compare,
    custom,
    data_dependent,
    elementwise,
    indexing,
    inplace,
    layout,
    linalg,
    math,
    norms,
    numbers,
    reductions,
    reductions_multi,
    shapes,
    sorting,
    views,
)
from fuzz.ops.spec import OpSpec

CATALOGUE: tuple[OpSpec, ...] = (
    elementwise.OPS
    + reductions.OPS
    + views.OPS
    + inplace.OPS
    + data_dependent.OPS
    + branches.OPS
    + numbers.OPS
    + custom.OPS
    + math.OPS
    + compare.OPS
    + layout.OPS
    + indexing.OPS
    + sorting.OPS
    + shapes.OPS
    + reductions_multi.OPS
    + norms.OPS
    + linalg.OPS
)
BY_NAME: dict[str, OpSpec] = {op.name: op for op in CATALOGUE}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(op.family for op in CATALOGUE))
assert len(BY_NAME) == len(CATALOGUE), "op names must be unique"


# Lanes whose programs run on another lane's stack, and so support its ops: the XNNPACK
# lane is ExecuTorch with a delegate (what the delegate does not take runs on the
# portable kernels, as on the EXIR lane); the ThunderFX lane is Thunder under Dynamo; the
# Thunder-decompositions lane is Thunder with other executors.
RUNS_AS = {"xnnpack": "exir", "thunderfx": "thunder", "thunderprims": "thunder"}


def for_lanes(lanes) -> tuple[OpSpec, ...]:
    """Ops every one of `lanes` supports (a generated case is drawn for one lane:
    `for_lanes([lane])` is that lane's whole op set)."""
    wanted = {RUNS_AS.get(lane, lane) for lane in lanes}
    return tuple(op for op in CATALOGUE if wanted <= op.lanes)
