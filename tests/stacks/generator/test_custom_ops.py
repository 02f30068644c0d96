"""The harness's custom ops: ExecuTorch can memory-plan every one of them (each has an
`.out` overload that ToOutVarPass finds, `torch.library.custom_op` ones included), and
Thunder runs the shape ops (`head`, `bmul`) through `custom_op_ex`, with sizes that come
from numbers and shapes."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.export import Dim

import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)
from fuzz.case import case_from_source
from fuzz.case_runner import run_case

OPS = {
    "positive": (lambda x: torch.ops.fuzz.positive(x), (torch.randn(3, 4),)),
    "positive_head": (lambda x: torch.ops.fuzz.positive_head(x, 3), (torch.randn(3, 4),)),
    "split_sign": (lambda x: torch.ops.fuzz.split_sign(x), (torch.randn(3, 4),)),
    "head": (lambda x, n: torch.ops.fuzz.head(x, n), (torch.randn(3, 4), 5)),
    "head_dim": (lambda x: torch.ops.fuzz.head(x, x.shape[0]), (torch.randn(3, 4),)),
    "bmul": (lambda a, b: torch.ops.fuzz.bmul(a, b), (torch.randn(3, 4), torch.randn(4))),
}


class _Module(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


@pytest.mark.parametrize("name", OPS)
def test_to_executorch_plans_each_custom_op_through_its_out_overload(name):
    from executorch.exir import to_edge

    fn, args = OPS[name]
    dims = tuple({0: Dim.AUTO(min=2, max=8)} if isinstance(a, torch.Tensor) else None for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(_Module(fn), args, dynamic_shapes=(dims,), strict=False)
        program = to_edge(ep).to_executorch()
    targets = [
        str(n.target)
        for n in program.exported_program().graph_module.graph.nodes
        if n.op == "call_function"
    ]
    op = "head" if name == "head_dim" else name
    assert f"fuzz.{op}.out" in targets, targets
    assert program.buffer  # serialized


def test_shape_op_schemas_pair_functional_and_out_overloads():
    for op in fuzz.custom_ops.THUNDER_OPS:
        packet = getattr(torch.ops.fuzz, op._qualname.split("::")[1])
        assert set(packet.overloads()) == {"default", "out"}
        functional, out = packet.default._schema, packet.out._schema
        # Same leading arguments (SymInt where custom_op turned `int` into SymInt).
        assert [str(a.type) for a in functional.arguments] == [
            str(a.type) for a in out.arguments if not a.kwarg_only
        ]


THUNDER_CASE = """
import torch
import fuzz.custom_ops

def program(x, y, n):
    a = torch.ops.fuzz.head(x, n)
    b = torch.ops.fuzz.head(x, x.shape[0])
    c = torch.ops.fuzz.bmul(x, y)
    return (a * 2.0, b, c)

def calls():
    return [
        (torch.randn(3, 4), torch.randn(4), 5),
        (torch.randn(3, 4), torch.randn(1), 2),
        (torch.randn(5, 4), torch.randn(5, 1), 7),
    ]
"""


def test_thunder_runs_the_custom_ops_with_the_custom_op_executor():
    result = run_case(
        case_from_source(THUNDER_CASE, "custom"), lanes=("thunder",), devices=("cpu",)
    )
    (report,) = result.reports
    assert report.skipped is None, report.skipped
    assert report.counters["hits"] + report.counters["misses"] == 3, report.counters
    assert not result.divergences, [str(d) for d in result.divergences]
