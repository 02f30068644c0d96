"""Where the runtime first goes wrong on one call, when the edge program is right.

A fault below the edge program (to_executorch's passes, the emitter, memory planning, a
kernel) leaves the edge program agreeing with the ATen program, so fuzz.backends.exir.
origin locates nothing, and its symptoms (a crash in one kernel, wrong values in
another) share no fact. The runtime can say where it departs: the call is run again on
the program loaded with ExecuTorch's own event tracer and a debug buffer
(`Runtime.load_program(enable_etdump=True, debug_buffer_size=...)`), which records each
instruction's outputs; `executorch.devtools.Inspector` reads them back, each event with
its instruction id, which the program manager's `debug_handle_map` turns into the debug
handle of the edge node it runs (`meta['debug_handle']`). The edge program runs node by
node in eager on the same inputs (fuzz.backends.exir.interpret), and the first
instruction whose outputs differ from its edge node's value is the runtime origin:
`{"op", "class", "nature", "node"}`, nature `dtype`, `shape` or `values` as in
fuzz.backends.exir.origin, or `raised` when the call raised and every recorded output
before agreed (the last recorded instruction is the kernel that raised).

Limits, said where they apply: instructions that record no output (ExecuTorch's own
`et_view`, prim ops on sizes, delegate calls) are not compared, so a fault there departs
at the first instruction that reads what they made. Nor is an instruction whose recorded
outputs are not its node's by number and rank (a pass that gave a node's handle to
another instruction: on the stock stack a 0-d constant's `_to_dim_order_copy` shared its
handle with a 3-d one), nor an output in a non-default dim order (the event tracer
records its memory layout: a channels-last clone "departed" by values on the stock
runtime). Only the top-level graph is walked (an instruction inside a `cond` branch is
not mapped), and a process that dies leaves no event to read.
"""

from __future__ import annotations

import contextlib
import operator
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.backends.base import LaneReport
from fuzz.backends.exir.interpret import interpret
from fuzz.backends.exir.origin import difference, op_class, record_origin
from fuzz.errors import error_text
from fuzz.facts import target_name
from fuzz.tensors import copy_args

DEBUG_BUFFER_BYTES = 1 << 24  # each instruction's outputs; the programs are small


def _handles(handle_map: dict) -> dict[int, int]:
    """instruction id -> the one debug handle of its edge node (instructions that map to
    several nodes, or none, are left out: they cannot be compared with one value)."""
    out = {}
    for instruction, handles in (handle_map or {}).items():
        if isinstance(handles, int):
            out[int(instruction)] = handles
        elif isinstance(handles, (list, tuple)) and len(handles) == 1:
            out[int(instruction)] = int(handles[0])
    return out


@contextlib.contextmanager
def _quiet_stdout():
    """The Inspector parses the ETDump with ExecuTorch's bundled `flatc`, which writes
    its own path to the process's stdout: `replay --json -` printed it before its JSON.
    Both fd 1 and sys.stdout go to a scratch file meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as scratch, open(os.devnull, "w") as sink:
        os.dup2(scratch.fileno(), 1)
        try:
            with contextlib.redirect_stdout(sink):
                yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _recorded_events(buffer: bytes, flat_inputs: list[Any]) -> tuple[list[Any], str | None]:
    """The operator events of one traced execution, in order, and what it raised."""
    from executorch.devtools import Inspector  # heavy: only for a diverging call
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(
        buffer, enable_etdump=True, debug_buffer_size=DEBUG_BUFFER_BYTES
    )
    method = program.load_method("forward")
    raised = None
    try:
        method.execute(flat_inputs)
    except Exception as e:
        raised = error_text(e, 200)
    with tempfile.TemporaryDirectory() as tmp, _quiet_stdout():
        etdump, debug = os.path.join(tmp, "etdump.etdp"), os.path.join(tmp, "debug.bin")
        program.write_etdump_result_to_file(etdump, debug)
        inspector = Inspector(etdump_path=etdump, debug_buffer_path=debug)
    events = [
        event
        for block in inspector.event_blocks
        for event in block.events
        if event.name == "OPERATOR_CALL"
    ]
    return events, raised


def runtime_departure(
    edge_ep: Any, et: Any, flat_inputs: list[Any], args: Sequence[Any]
) -> dict[str, str] | None:
    """The first instruction of the runtime's run of `flat_inputs` whose outputs differ
    from its edge node's value on `args` (module docstring); None when every recorded
    output agrees and the call did not raise. Raises what interpreting the edge program
    raises (then it locates nothing)."""
    values = interpret(edge_ep, copy_args(tuple(args)), snapshot=True)
    # A multi-output op's `getitem`s share its handle: the op itself holds the outputs. A
    # handle two other nodes share names no one value: left out.
    holders: dict[int, list[torch.fx.Node]] = {}
    for n in edge_ep.graph_module.graph.nodes:
        if isinstance(n.meta.get("debug_handle"), int) and n.target is not operator.getitem:
            holders.setdefault(n.meta["debug_handle"], []).append(n)
    by_handle = {h: nodes[0] for h, nodes in holders.items() if len(nodes) == 1}
    handles = _handles((et.debug_handle_map or {}).get("forward", {}))
    events, raised = _recorded_events(et.buffer, flat_inputs)
    last = None
    for event in events:
        node = by_handle.get(handles.get(event._instruction_id))
        outputs = [o for o in (event.debug_data or []) if isinstance(o, torch.Tensor)]
        if node is None or not outputs or ((), node.name) not in values:
            continue
        expected = values[((), node.name)]
        ranks = [t.dim() for t in pytree.tree_leaves(expected) if isinstance(t, torch.Tensor)]
        if ranks != [o.dim() for o in outputs]:
            continue  # not the node's outputs: a handle a pass gave another instruction
        last = node
        if any(
            isinstance(t, torch.Tensor) and not t.is_contiguous()
            for t in pytree.tree_leaves(expected)
        ):
            continue  # ETDump records it in its dim order's layout, not as eager holds it
        nature = difference(expected, outputs if len(outputs) > 1 else outputs[0])
        if nature is not None:
            return _origin(node, nature)
    if raised is not None and last is not None:
        return _origin(last, "raised")
    return None


def _origin(node: torch.fx.Node, nature: str) -> dict[str, str]:
    return {
        "op": target_name(node.target),
        "class": op_class(node.target),
        "nature": nature,
        "node": node.name,
    }


def locate_runtime(
    report: LaneReport, index: int, edge_ep: Any, et: Any, flat_inputs: list[Any], args: tuple
) -> None:
    """The runtime origin of call `index`, recorded as "runtime-origin"
    (fuzz.backends.exir.origin.record_origin); a failure to trace or read it locates
    nothing."""
    record_origin(
        report, index, "runtime-origin", lambda: runtime_departure(edge_ep, et, flat_inputs, args)
    )
