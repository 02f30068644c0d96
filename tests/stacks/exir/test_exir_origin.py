"""Where the edge program first departs from the ATen program (fuzz/backends/exir/origin.py).

Ground truth comes from real lowering faults: two of the fault benchmark's plugins
(tests/faults/, installed here for one test and uninstalled after), and an edge
graph corrupted by hand. Without a fault the two programs agree and nothing is located.
"""

from __future__ import annotations

import importlib

import pytest
import torch

from fuzz.backends.exir.origin import difference, first_departure, op_class
from fuzz.backends.exir.pipeline import build


def _departure(program, args, dims=None, fault: str | None = None):
    module = importlib.import_module(f"tests.faults.{fault}") if fault else None
    if module is not None:
        module.install()
    try:
        b = build(program, args, dims or {})
        return first_departure(b.ep, b.edge.exported_program(), args)
    finally:
        if module is not None:
            module.uninstall()


def int_times_half(x):
    return (x * 0.5 + 1.0,)


def transpose_then_scale(x):
    return (x.transpose(0, 1) * 2.0,)


INT_ARGS = (torch.tensor([1, 2, 3], dtype=torch.int32),)
ROW_ARGS = (torch.randn(1, 4),)


@pytest.mark.parametrize(
    "program, args, fault, expected",
    [
        (
            int_times_half,
            INT_ARGS,
            "promotion_zero_dim",
            {
                "op": "aten.mul.Tensor",
                "class": "pointwise",
                "nature": "dtype",
                "node": "mul",
                "dtype_op": "aten.mul.Tensor",
                "dtype_operands": "number,tensor",
            },
        ),
        (
            transpose_then_scale,
            ROW_ARGS,
            "export_transpose_size1",
            {"op": "aten.transpose.int", "class": "view", "nature": "shape", "node": "transpose"},
        ),
    ],
)
def test_a_lowering_fault_is_located_at_the_first_node_it_gets_wrong(
    program, args, fault, expected
):
    assert _departure(program, args, fault=fault) == expected
    assert _departure(program, args) is None  # the stock lowering agrees node by node


def _sin_lowered_with(kernel):
    """`sin(x) * 2.0`, exported and lowered; then its edge program's sin node runs
    `kernel`. The ATen program, the edge program and the arguments."""

    def program(x):
        return (torch.sin(x) * 2.0,)

    args = (torch.randn(3, 4),)
    b = build(program, args, {})
    edge_ep = b.edge.exported_program()
    (sin,) = [n for n in edge_ep.graph.nodes if "sin" in str(n.target)]
    sin.target = kernel
    edge_ep.graph_module.recompile()
    return b.ep, edge_ep, args


def test_a_wrong_kernel_in_the_edge_graph_is_located_by_its_values():
    found = first_departure(*_sin_lowered_with(_edge_op("cos")))  # another kernel
    assert found == {
        "op": "aten.sin.default",
        "class": "pointwise",
        "nature": "values",
        "node": "sin",
    }


def test_a_dtype_departure_after_a_values_departure_is_located_too():
    """The registered 0-dim promotion (corpus/executorch_zero_dim_scalar_promotion.py: a
    float16 0-dim tensor times a float is float32 in the edge program) after a node that
    already departs by values: the first departure is that node, and the first dtype
    departure is still found, at the op of a 0-dim tensor and a number."""

    def program(x):
        return (torch.sin(x).sum() * 2.0,)

    args = (torch.randn(5, dtype=torch.float16),)
    b = build(program, args, {})
    edge_ep = b.edge.exported_program()
    assert first_departure(b.ep, edge_ep, args)["nature"] == "dtype"  # the stock bug alone
    (sin,) = [n for n in edge_ep.graph.nodes if "sin" in str(n.target)]
    sin.target = _edge_op("cos")  # an earlier node now departs by values
    edge_ep.graph_module.recompile()
    assert first_departure(b.ep, edge_ep, args) == {
        "op": "aten.sin.default",
        "class": "pointwise",
        "nature": "values",
        "node": "sin",
        "dtype_op": "aten.mul.Tensor",
        "dtype_operands": "0-dim,number",
    }


def bincount_checked(x):
    v = torch.bincount(x.abs().long().clamp(max=7), minlength=8)
    torch._check(v.shape[0] == 8)
    return (v * 2,)


def test_a_size_taken_of_a_tensor_is_not_compared_with_the_tensor():
    """The `sym_size` the `torch._check` reads descends from bincount's node in the edge
    program (meta['from_node']); as the last such node it was compared with bincount's
    tensor, and every program like this departed "by values" on the stock stacks (a
    floor-division fault's night merged two findings on that false origin)."""
    args = (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
    assert _departure(bincount_checked, args, {0: {0: (2, 8)}}) is None


def test_uninitialized_memory_is_compared_by_dtype_and_shape_only():
    """`new_empty` holds whatever memory held: its values agree with nothing, and a
    program that fills one departed there by values on the stock stacks. Here the edge
    program's empty tensor holds NaNs (as memory might); nothing departs. A wrong shape of
    it still departs."""

    def program(x):
        return (x.new_empty((x.shape[0], 2)).fill_(1.5) + x.sum(),)

    args = (torch.randn(3),)
    b = build(program, args, {0: {0: (2, 8)}})
    edge_ep = b.edge.exported_program()
    (empty,) = [n for n in edge_ep.graph.nodes if "empty" in str(n.target)]
    empty.target = _nan_filled
    edge_ep.graph_module.recompile()
    assert first_departure(b.ep, edge_ep, args) is None
    empty.target = _one_row_short
    edge_ep.graph_module.recompile()
    assert first_departure(b.ep, edge_ep, args)["nature"] == "shape"


def _nan_filled(size, **kwargs):
    return torch.full(size, float("nan"))


def _one_row_short(size, **kwargs):
    return torch.full((size[0] - 1, *size[1:]), float("nan"))


def floor_index(x, w):
    return (w.index_select(0, x // 2 + 4),)


def test_a_departure_before_the_edge_program_raises_is_located():
    """The floor-division fault (rounding toward zero) makes an index that is in range in
    the ATen program (-7 // 2 + 4 == 0) and out of range in the edge program (-3 + 4 ==
    1, for a one-row `w`): the edge program raises at index_select, as the runtime's
    kernel fails (exir.crash). The division departed first, and is the origin: the crash
    and the wrong results of that fault have one origin."""
    args = (torch.tensor([-7]), torch.randn(1, 3))
    assert _departure(floor_index, args, fault="export_floordiv_trunc") == {
        "op": "aten.floor_divide.default",
        "class": "aten.floor_divide.default",  # not tagged pointwise
        "nature": "values",
        "node": "floor_divide",
    }
    assert _departure(floor_index, args) is None


def test_an_edge_program_that_raises_before_any_departure_raises():
    """Nothing departs before the raise: nothing is located, and what the edge program
    raised is raised (fuzz.backends.exir.origin.locate counts it as an origin error)."""
    with pytest.raises(RuntimeError, match="kernel check failed"):
        first_departure(*_sin_lowered_with(_failing_kernel))


def _failing_kernel(*args, **kwargs):
    raise RuntimeError("kernel check failed")


def _edge_op(name: str):
    from executorch.exir.dialects._ops import ops as exir_ops

    return getattr(exir_ops.edge.aten, name).default


def test_differences_are_told_by_nature_with_float_tolerances():
    a = torch.tensor([1.0, 2.0])
    assert difference(a, a + 1e-7) is None  # within float32's tolerance
    assert difference(a, a + 1.0) == "values"
    assert difference(a, a.to(torch.float64)) == "dtype"
    assert difference(a, a.view(2, 1)) == "shape"
    assert difference((a, 3), (a, 4)) == "values"
    assert difference(torch.tensor([1, 2]), torch.tensor([1, 3])) == "values"


def test_op_classes():
    aten = torch.ops.aten
    assert op_class(aten.add.Tensor) == op_class(aten.mul.Tensor) == "pointwise"
    assert op_class(aten.transpose.int) == op_class(aten.narrow.default) == "view"
    assert op_class(aten.bmm.default) == "aten.bmm.default"


def test_a_multi_output_node_kept_as_one_piece_is_judged_where_the_piece_is_used():
    """tensor_split's second piece is one slice_copy in the edge program: it agrees with
    eager (no departure at the tuple of pieces); a wrong piece departs at its user."""

    def program(x):
        _, rest = torch.tensor_split(x, (1,), 0)
        return (rest * 2.0,)

    args = (torch.randn(4, 3),)
    b = build(program, args, {0: {0: (2, 8)}})
    edge_ep = b.edge.exported_program()
    assert first_departure(b.ep, edge_ep, args) is None
    (piece,) = [n for n in edge_ep.graph.nodes if "slice_copy" in str(n.target)]
    piece.args = (piece.args[0], piece.args[1], 2, *piece.args[3:])  # starts a row late
    edge_ep.graph_module.recompile()
    found = first_departure(b.ep, edge_ep, args)
    assert found is not None and found["op"] == "aten.mul.Tensor", found
    assert found["nature"] == "shape", found


def view_then_mutate_then_floordiv(x, y):
    v = x[::2]
    w = v * 2.0
    x.add_(x)
    return (torch.stack([w, v]), y // torch.where(y < 0, 1 - y, -1 - y))


def test_a_view_of_an_input_mutated_later_is_compared_as_it_was_made():
    """The ATen program's `slice` is a view of the input that the final `copy_` writes
    back; the edge program's `slice_copy` is a copy. Compared after the run, the view
    held the written values and the walk located every fault of such a program at the
    slice (the fault benchmark's floor-division night filed a second finding so)."""
    args = (torch.randn(4, 3), torch.randn(5))
    assert _departure(view_then_mutate_then_floordiv, args) is None
    found = _departure(view_then_mutate_then_floordiv, args, fault="export_floordiv_trunc")
    assert found is not None and found["op"] == "aten.floor_divide.default", found
