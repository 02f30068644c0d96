"""The edge program's result on one call, for the calls the runtime gives no result for.

Why: about a fifth of the EXIR programs of a night hold an operator the pip runtime has
no kernel for (sort, unique, cumprod, ...; report.json `runtime_static_share`), and they
got the static checks only: a lowering fault that changes values or shapes (a wrong
decomposition in `to_edge`) went unseen in them, since only a runtime result was compared
with eager. The edge program (`EdgeProgramManager.exported_program()`: to_edge's
decompositions and edge passes applied) runs in eager here, node by node (its edge
operators run their real ATen kernels, as in fuzz.backends.exir.interpret), and its
outputs and the inputs it writes are compared with eager's: `exir.edge-result`.

What it cannot see: to_executorch (out variants, memory planning: the plan oracles check
those) and the runtime's own kernels. It runs only where the runtime gives no result
(static checks only, or a call the runtime binding cannot take): where the runtime runs,
its result already shows a fault of to_edge, and checking both would file one bug twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from fuzz.backends.exir.interpret import program_inputs
from fuzz.backends.exir.runtime import flat_copies, functional_call_record
from fuzz.errors import error_text
from fuzz.observe import CallRecord, cpu_copy


def run_edge(edge_ep: torch.export.ExportedProgram, args: Sequence[Any]) -> CallRecord:
    """One call of the edge program, as a CallRecord comparable with eager's: its user
    outputs, and as `inputs_after` every flat input leaf with the user-input mutations it
    returns put in (the graph is functional: a mutation is an output, as on the runtime)."""
    flat = flat_copies(args)
    try:
        with torch.no_grad():
            results = torch.fx.Interpreter(edge_ep.graph_module).run(
                *program_inputs(edge_ep, tuple(flat))
            )
    except Exception as e:  # the edge program failed where eager may not: judged by the caller
        return CallRecord([], error_text(e), [cpu_copy(x) for x in flat])
    return functional_call_record(edge_ep.graph_signature, results, flat)
