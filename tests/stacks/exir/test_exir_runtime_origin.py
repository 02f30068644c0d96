"""Where the runtime first goes wrong when the edge program is right
(fuzz/backends/exir/runtime_origin.py).

Ground truth from faults below the edge program (tests/faults/, installed for one test
and uninstalled after): a kernel handed its out buffers swapped, and an emitter that
writes a size list out of order. Without a fault the runtime agrees instruction by
instruction and nothing is located.
"""

from __future__ import annotations

import importlib

import pytest
import torch

from fuzz.backends.exir.origin import first_departure
from fuzz.backends.exir.pipeline import build
from fuzz.backends.exir.runtime import LoadedProgram
from fuzz.backends.exir.runtime_origin import runtime_departure


def _origins(program, args, dims=None, fault: str | None = None, call=None):
    """(edge origin, runtime origin) of `call` (default: the example `args`)."""
    module = importlib.import_module(f"tests.faults.{fault}") if fault else None
    if module is not None:
        module.install()
    try:
        b = build(program, args, dims or {})
        call = call or args
        edge_ep = b.edge.exported_program()
        loaded = LoadedProgram(b.buffer)
        try:
            flat = loaded.inputs(call)
        finally:
            loaded.close()
        return first_departure(b.ep, edge_ep, call), runtime_departure(edge_ep, b.et, flat, call)
    finally:
        if module is not None:
            module.uninstall()


def topk_scaled(x):
    values, indices = torch.topk(x, 2)
    return (values * 2.0, indices)


def reshape_scaled(x):
    return (x.reshape(x.shape[0] * 2, 6) * 2.0,)


TOPK_ARGS = (torch.randn(3, 5),)
RESHAPE_ARGS, RESHAPE_DIMS = (torch.randn(4, 2, 6),), {0: {0: (2, 8)}}


def test_a_kernel_given_swapped_out_buffers_is_the_runtime_origin():
    edge, runtime = _origins(topk_scaled, TOPK_ARGS, fault="out_args_sorted")
    assert edge is None  # the edge program is right: the fault is below it
    assert runtime is not None and runtime["op"] == "aten.topk.default", runtime
    assert runtime["nature"] in ("dtype", "values", "raised")


def test_an_instruction_reading_a_size_the_emitter_wrote_wrong_is_the_origin():
    """The emitter's view records no output of its own (`et_view`): the first recorded
    instruction that reads it departs, by shape (the module docstring's limit)."""
    call = (torch.randn(5, 2, 6),)
    edge, runtime = _origins(
        reshape_scaled, RESHAPE_ARGS, RESHAPE_DIMS, fault="emitter_int_list_order", call=call
    )
    assert edge is None
    assert runtime == {
        "op": "aten.mul.Tensor",
        "class": "pointwise",
        "nature": "shape",
        "node": "aten_mul_tensor",
    }


@pytest.mark.parametrize(
    "program, args, dims",
    [(topk_scaled, TOPK_ARGS, None), (reshape_scaled, RESHAPE_ARGS, RESHAPE_DIMS)],
)
def test_the_stock_runtime_agrees_instruction_by_instruction(program, args, dims):
    assert _origins(program, args, dims) == (None, None)


TOPK_CASE = """
import torch


def program(x):
    values, indices = torch.topk(x, 2)
    return (values * 2.0, indices)


def calls():
    return [(torch.randn(3, 5),)]
"""


def test_the_lane_puts_the_runtime_origin_on_the_divergence_as_a_fact():
    from fuzz.case import case_from_source
    from fuzz.case_runner import run_case

    module = importlib.import_module("tests.faults.out_args_sorted")
    module.install()
    try:
        result = run_case(case_from_source(TOPK_CASE, "topk"), lanes=("exir",), confirm=False)
    finally:
        module.uninstall()
    at_call = [d for d in result.divergences if d.stage == "call[0]"]
    assert at_call, [d.kind for d in result.divergences]
    facts = at_call[0].data["facts"]
    assert facts["runtime_origin"].startswith("aten.topk.default:"), facts
    assert "origin" not in facts  # the edge program is right


def channels_last_round_trip(x):
    y = torch.sin(x.contiguous(memory_format=torch.channels_last))
    return (y.contiguous(),)


def test_outputs_in_another_dim_order_are_not_compared():
    """The event tracer records a channels-last output in its memory layout: compared
    with eager's value it "departed" by values on the stock runtime."""
    assert _origins(channels_last_round_trip, (torch.randn(2, 3, 4, 5),)) == (None, None)
