"""Facts about what actually ran, recorded on every divergence for the bug registry.

A registered bug (fuzz/known.py) is recognised by what was *observed*, not by how the
harness happened to render the program: a regex over the source matched the rendered
`torch.randn(3, 3)` of any square input, and missed `base[:2], base[2:]` when the case
was written with column blocks. So each divergence carries `data["facts"]`:

    ops         the ops as the lane saw them, sorted: the call_function targets of the
                EXIR graph (the edge program, or the exported one when to_edge failed;
                cond branches included), e.g. "aten.amax.default", "higher_order.cond";
                the bound symbols of Thunder's initial trace for that call, e.g.
                "torch.exp", "torch.Tensor.add_", "PrimIDs.GT". EXIR adds what the graph
                says of a node: "<op>:<dtype>" for each tensor it makes
                ("aten.remainder.Scalar:int64": a kernel fault of one dtype is
                recognised where the program made that dtype itself, not only where an
                input had it), "<op>:dim-order" (its value's strides are not in
                decreasing order: a planned dim order other than the default) and
                "<op>:non-contiguous" (and its last dim is not contiguous),
                "higher_order.cond:constant-predicate" (export made the predicate a
                constant) and "<higher-order op> x2" (it occurs more than once)
    inputs      how the call's tensor inputs share storage, sorted tags: "same-tensor"
                (two arguments are one view of one storage), "disjoint-views" (two views
                of one storage whose bytes do not overlap), "overlapping-views" (they
                overlap but are not the same view); [] when nothing is shared
    sizes       tags of the call's input tensor sizes: "empty" (a dim of size 0),
                "zero-dim" (a 0-d tensor)
    dtypes      the call's input tensor dtypes, sorted ("float32", "int64")
    numbers     the call's Python number input types, sorted ("float", "int")
    error_type  the exception's class name, when the divergence quotes one
    at          where it failed, when the lane knows: the op of the program line a Thunder
                call raised in (LaneReport.details["at_by_call"]), the ATen node of a
                planned tensor an EXIR plan check judged (data["aten"], suffix dropped)
    origin      EXIR calls whose result or plan diverged: the first ATen node whose
                value the edge program gets wrong on that call, "<op>:<nature>"
                ("aten.mul.Tensor:dtype"; nature dtype, shape or values), and
                origin_class, that op's class ("pointwise", "view" or the op itself);
                absent when the edge program agrees with the ATen program (the fault is
                later) (fuzz/backends/exir/origin.py, LaneReport.details["origin_by_call"]);
                Thunder wrong results: the first value the program assigns that Thunder
                gets wrong, "<catalogue op>:<nature>" ("flip_dims:values"), origin_class
                the op (fuzz/backends/thunder/origin.py)
    specialized  EXIR: the stages ("to_edge", "to_executorch") whose guards made a dim
                static that the exported program declares dynamic (its ShapeEnv gained
                s77 -> 3): the lowered program then plans and accepts the example's
                size only (LaneReport.details["specialized"]); absent when none did.
                With "empty-at-example" besides when such a dim sizes a value that is
                empty at the export example but not always (`x[2:]` of 2 rows; details
                "specialized_empty"). "<stage>:<op>" ("to_edge:dim_order_ops._empty_dim_
                order.default") where that stage made an op's size static that the
                program computes from dynamic dims, with no dim specialized (a guard on
                `s27*s53 + 1`; details "static_sizes", fuzz.backends.exir.graph.static_sizes).
                "by:<package path>:<function>" the frame whose guard specialized a dim
                ("by:executorch/exir/tensor.py:__lt__", details "specialized_by").
    runtime_origin  EXIR calls whose runtime result or crash has no origin (the edge
                program is right): the first instruction of the runtime's own traced
                run (ETDump) whose outputs differ from its edge node's value,
                "<op>:<nature>" (nature dtype, shape, values, or raised: the kernel that
                raised), and runtime_origin_class, that op's class
                (fuzz/backends/exir/runtime_origin.py,
                LaneReport.details["runtime_origin_by_call"]); for a process the runtime
                killed, "<op>:died", the op of the kernel it died in (crash confirmation,
                fuzz.campaign.triage)
    died_in     a process death only: the ExecuTorch kernel the native stack shows it
                died in ("index_Tensor_out", fuzz.native_stack)
    matches_eager_with  EXIR calls whose runtime result differs from eager: the emulated
                kernel semantics under which the exported program computes what the
                runtime did ("int-remainder-truncated"), fuzz/backends/exir/emulate.py;
                absent when none does
    dtype_origin  the same walk's first ATen node whose value the edge program gets in
                another dtype, with the kinds of its operands on that call:
                "aten.mul.Tensor:0-dim,number" (kinds "0-dim", "tensor", "number");
                absent when no node departs by dtype

    plan        EXIR: what the greedy memory plan shows whatever the call,
                "view-exceeds-base" (a planned view claims more bytes than the storage it
                views: fuzz.backends.exir.oracles.overlap.views_exceeding_base),
                "lifetime-short" (the planner's lifetime of a tensor ends before its last
                use, or starts after its first, by the lifetimes the harness computes
                from the graph: overlap.short_lifetimes)
    during      a process death only (`announced`): what the lane was running when the
                process died, "calls" (the program on its calls) or "contract[lower]"
                (a contract probe, an input outside the exported contract: see
                fuzz.backends.exir.contract.announce_probe). Before the calls the EXIR
                lane also announces the program's plan divergences, which crash
                confirmation adds to the finding (not a fact)

The call is the one the divergence's stage names ("call[2]"); for a stage that is not a
call (export, to_edge, memory planning, probes) it is the call the lane built from (the
EXIR example call), else the first. The lane contributes `ops` (LaneReport.details:
"ops", or "ops_by_call" per call index); the rest is computed here from the inputs.

A process that dies (SIGABRT in a kernel) leaves no divergence to put facts on, so a lane
*announces* the ops it is about to run (`announce`, a `FACTS {...}` line on stdout, when
$FUZZ_ANNOUNCE_FACTS is set): the parent that ran it in a fresh process
(fuzz.outcome.run_lane_isolated, crash confirmation) puts the last announcement on the
`<lane>.crash` divergence it makes (`announced`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import torch

from fuzz.divergence import Divergence, call_index

_ERROR_TYPE = re.compile(r"^\s*([A-Za-z_][\w.]*): ")
# Thunder's interpreter wraps what a traced function raised: the inner type is the fact.
_WRAPPED = re.compile(r"^\s*(?:\w+\.)*InterpreterError: Encountered exception ")


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


_MAX_ELEMENTS = 1 << 20  # past this, sharing is judged by byte spans alone


def _elements(t: torch.Tensor) -> torch.Tensor:
    """The storage element offsets a strided tensor reads (in units of its dtype)."""
    size = t.storage_offset() + 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return torch.arange(size).as_strided(t.shape, t.stride(), t.storage_offset()).reshape(-1)


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two views of one storage touch a common byte: column blocks of one base
    interleave in memory without sharing an element."""
    spans = []
    for t in (a, b):
        start = t.storage_offset() * t.element_size()
        extent = sum((n - 1) * abs(s) for n, s in zip(t.shape, t.stride()))
        spans.append((start, start + (extent + 1) * t.element_size() - 1))
    (a0, a1), (b0, b1) = spans
    if a1 < b0 or b1 < a0:
        return False
    if a.element_size() != b.element_size() or max(a.numel(), b.numel()) > _MAX_ELEMENTS:
        return True  # cannot enumerate cheaply: say overlapping, the weaker claim
    if any(s < 0 for s in (*a.stride(), *b.stride())):
        return True
    return bool(torch.isin(_elements(a), _elements(b)).any())


def storage_structure(args: Sequence[Any]) -> list[str]:
    """The sharing tags of a call's tensor inputs (see the module docstring)."""
    tensors = [
        t
        for t in _leaves(args)
        if isinstance(t, torch.Tensor) and type(t) is torch.Tensor and t.layout is torch.strided
    ]
    tags = set()
    for i, a in enumerate(tensors):
        for b in tensors[i + 1 :]:
            if a.numel() == 0 or b.numel() == 0:
                continue
            if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
                continue
            view = (a.shape, a.stride(), a.storage_offset(), a.dtype)
            if view == (b.shape, b.stride(), b.storage_offset(), b.dtype):
                tags.add("same-tensor")
            else:
                tags.add("overlapping-views" if _overlap(a, b) else "disjoint-views")
    return sorted(tags)


def size_tags(args: Sequence[Any]) -> list[str]:
    tags = set()
    for t in _leaves(args):
        if isinstance(t, torch.Tensor):
            if t.dim() == 0:
                tags.add("zero-dim")
            elif 0 in t.shape:
                tags.add("empty")
    return sorted(tags)


def input_dtypes(args: Sequence[Any]) -> list[str]:
    return sorted(
        {str(t.dtype).removeprefix("torch.") for t in _leaves(args) if isinstance(t, torch.Tensor)}
    )


def number_types(args: Sequence[Any]) -> list[str]:
    return sorted(
        {type(v).__name__ for v in _leaves(args) if isinstance(v, (bool, int, float, complex))}
    )


def error_type(text: str | None) -> str | None:
    """The exception class of an `error_text` ("ValueError: bad size" -> "ValueError")."""
    text = _WRAPPED.sub("", text or "")
    m = _ERROR_TYPE.match(text)
    return m.group(1).rsplit(".", 1)[-1] if m else None


def target_name(target: Any) -> str:
    """A graph node target as one stable name (the same name on edge and ATen graphs)."""
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order.{target.name()}"
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    name = getattr(target, "__name__", None)
    if name is None:
        return str(target)
    if type(target).__name__ == "EdgeOpOverload":  # "aten.amax.default"
        return name
    module = (getattr(target, "__module__", None) or "").lstrip("_")
    return f"{module}.{name}" if module else name


def _layout_tags(val: Any) -> list[str]:
    """What a node value's strides say, decided without guarding on symbolic sizes:

    dim-order       its strides are not in decreasing order, so the dim order ExecuTorch
                    derives from them (`dim_order_from_stride`) is not the default one:
                    `nonzero`'s (n, 1) output with strides (1, n) is (a literal stride
                    before a symbolic one counts, as does a smaller before a larger);
    non-contiguous  moreover its last dim, of more than one element, is not contiguous:
                    its elements are not laid out row-major (`nonzero`'s (n, 2) output).
    """
    if not isinstance(val, torch.Tensor) or val.dim() < 2:
        return []
    strides = val.stride()
    unordered = any(
        isinstance(a, int) and (not isinstance(b, int) or a < b)
        for i, a in enumerate(strides)
        for b in strides[i + 1 :]
    )
    if not unordered:
        return []
    size, stride = val.shape[-1], strides[-1]
    wide = not (isinstance(size, int) and size <= 1)
    scattered = not (isinstance(stride, int) and stride == 1)  # never guard on a SymInt
    return ["dim-order", "non-contiguous"] if wide and scattered else ["dim-order"]


def _dtype_tags(val: Any) -> list[str]:
    """The dtypes of the tensors a node makes (a tuple for topk, sort, unique)."""
    vals = val if isinstance(val, (tuple, list)) else (val,)
    return sorted(
        {str(v.dtype).removeprefix("torch.") for v in vals if isinstance(v, torch.Tensor)}
    )


def graph_ops(modules: Iterable[torch.nn.Module]) -> list[str]:
    """The call_function targets of every graph in `modules` (submodules: cond branches),
    with what the graph says of their nodes (see the module docstring)."""
    ops, higher_order = set(), Counter()
    for root in modules:
        for m in root.modules():
            graph = getattr(m, "graph", None)
            if not isinstance(graph, torch.fx.Graph):
                continue
            for n in graph.nodes:
                if n.op != "call_function":
                    continue
                name = target_name(n.target)
                ops.add(name)
                val = n.meta.get("val")
                ops.update(f"{name}:{tag}" for tag in _layout_tags(val) + _dtype_tags(val))
                if name.startswith("higher_order."):
                    higher_order[name] += 1
                    if n.args and isinstance(n.args[0], bool):
                        ops.add(f"{name}:constant-predicate")
    ops.update(f"{name} x2" for name, n in higher_order.items() if n > 1)
    return sorted(ops)


def facts_for(d: Divergence, calls: Sequence[tuple], details: dict[str, Any]) -> dict[str, Any]:
    """The facts of one divergence of a lane run on `calls` (see the module docstring)."""
    at_call = call_index(d.stage)
    per_call = at_call is not None  # else a stage that is no call: the example call's facts
    index = at_call if per_call else int(details.get("example_call", 0) or 0)
    args = calls[index] if 0 <= index < len(calls) else ()
    ops = (details.get("ops_by_call") or {}).get(index) if per_call else None
    if ops is None:
        ops = details.get("ops")
    facts: dict[str, Any] = {
        "ops": list(ops or ()),
        "inputs": storage_structure(args),
        "sizes": size_tags(args),
        "dtypes": input_dtypes(args),
        "numbers": number_types(args),
    }
    at = (details.get("at_by_call") or {}).get(index) if per_call else None
    if at is None and isinstance(d.data.get("aten"), str):
        at = re.sub(r"(_\d+)+$", "", d.data["aten"].split("/")[-1])
    if at:
        facts["at"] = at
    origin = (details.get("origin_by_call") or {}).get(index) if per_call else None
    if origin:  # fuzz/backends/exir/origin.py: the first node the lowering got wrong
        facts["origin"] = f"{origin['op']}:{origin['nature']}"
        facts["origin_class"] = origin["class"]
        if "dtype_op" in origin:
            facts["dtype_origin"] = f"{origin['dtype_op']}:{origin['dtype_operands']}"
    runtime = (details.get("runtime_origin_by_call") or {}).get(index) if per_call else None
    if runtime:  # fuzz/backends/exir/runtime_origin.py: the first instruction gone wrong
        facts["runtime_origin"] = f"{runtime['op']}:{runtime['nature']}"
        facts["runtime_origin_class"] = runtime["class"]
    matches = (details.get("explained_by_call") or {}).get(index) if per_call else None
    if matches:  # fuzz/backends/exir/emulate.py: what the runtime's wrong result is
        facts["matches_eager_with"] = list(matches)
    if specialized := details.get("specialized"):  # EXIR: {"s77=3": "to_edge"}
        facts["specialized"] = sorted(set(specialized.values()))
        if details.get("specialized_empty"):  # a specialized dim sized an empty value
            facts["specialized"].append("empty-at-example")
        # the frame whose guard did it: {"s53=4": "executorch/exir/tensor.py:__lt__"}
        by = details.get("specialized_by") or {}
        facts["specialized"].extend(sorted({f"by:{where}" for where in by.values()}))
    plan = []
    if details.get("views_exceeding_base"):  # EXIR: a planned view over more than its base
        plan.append("view-exceeds-base")
    if details.get("lifetimes_short"):  # EXIR: a planner lifetime ends before a last use
        plan.append("lifetime-short")
    if plan:
        facts["plan"] = plan
    if static := details.get("static_sizes"):  # {"s27*s53 + 1=16": "to_edge:<op>"}
        facts["specialized"] = sorted(set(facts.get("specialized", ())) | set(static.values()))
    quoted = d.data.get("error") or (d.details if d.kind.endswith(".crash") else None)
    if kind := error_type(quoted):
        facts["error_type"] = kind
    return facts


ANNOUNCE_ENV = "FUZZ_ANNOUNCE_FACTS"
_ANNOUNCED = "FACTS "


def announce(facts: dict[str, Any]) -> None:
    """Print what is about to run, for a parent that may see this process die."""
    if os.environ.get(ANNOUNCE_ENV):
        print(_ANNOUNCED + json.dumps(facts, default=str), flush=True)


def announced(printed: str) -> dict[str, Any]:
    """The last facts a child process announced in its output (empty: none)."""
    for line in reversed(printed.splitlines()):
        if line.startswith(_ANNOUNCED):
            try:
                return dict(json.loads(line[len(_ANNOUNCED) :]))
            except ValueError:
                return {}
    return {}


def attach_facts(report: Any, calls: Sequence[tuple]) -> None:
    """Give every divergence of a LaneReport its facts (kept where the lane set them)."""
    report.divergences = [
        d
        if "facts" in d.data
        else dataclasses.replace(d, data=d.data | {"facts": facts_for(d, calls, report.details)})
        for d in report.divergences
    ]
