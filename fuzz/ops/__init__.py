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


# Ops a lane leaves out of its draws although the stack it runs as takes them, each with
# the reason. The XNNPACK lane runs every program on the pip runtime, which has no kernel
# for what these lower to (the EXIR lane checks such programs statically instead): each
# would be a skipped program (36 % of the lane's first campaign). Checked against the
# runtime by tests/stacks/xnnpack/test_xnnpack_left_out.py, which lowers each one.
LEFT_OUT: dict[str, dict[str, str]] = {
    "xnnpack": {
        "argsort": "aten::sort.values_stable",
        "bincount": "aten::bincount.out",
        "bincount_free": "aten::bincount.out",
        "cumprod": "aten::cumprod.out",
        "empty_like_copy": "aten::empty_permuted.out",
        "searchsorted": "aten::searchsorted.Tensor_out",
        "shift": "aten::__lshift__.Scalar_out",
        "shift_bits_number": "aten::__lshift__.Scalar_out",
        "sort": "aten::sort.values",
        "sort_stable": "aten::sort.values_stable",
        "unique": "aten::_unique2.out",
        "unique_consecutive": "aten::unique_consecutive.out",
        "unique_inverse": "aten::_unique2.out",
    },
}


def for_lanes(lanes) -> tuple[OpSpec, ...]:
    """Ops every one of `lanes` supports (a generated case is drawn for one lane:
    `for_lanes([lane])` is that lane's whole op set), less those a lane leaves out."""
    wanted = {RUNS_AS.get(lane, lane) for lane in lanes}
    left_out = {name for lane in lanes for name in LEFT_OUT.get(lane, ())}
    return tuple(op for op in CATALOGUE if wanted <= op.lanes and op.name not in left_out)
