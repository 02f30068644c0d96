"""Template text of the EXIR repro scripts: ExecuTorch's pipeline as its docs run it
(torch.export with Dim.AUTO ranges, to_edge, to_executorch with the greedy memory plan
and the range-based sym-shape pass, the .pte on the pip runtime), and two checks:
`RUN`, every stage succeeds and every call inside what was exported returns on the runtime
what eager returns (exir.crash, exir.runtime-result); `EDGE`, export and to_edge succeed
and every such call returns from the edge program, run in eager node by node, what eager
returns (exir.edge-result: the runtime had no kernel for an operator of the program, so
the harness compared what to_edge produced instead). The other EXIR checks are in
exir_checks_template.py.

The steps are those of fuzz/backends/exir/pipeline.py, runtime.py and edge_run.py,
without the harness's probes and speedups.
"""

from __future__ import annotations

IMPORTS = """import copy
import random
import re
import sys
import traceback
import warnings

import torch
import torch.utils._pytree as pytree
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy
from executorch.exir.passes import MemoryPlanningPass
from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass
from executorch.runtime import Runtime
from torch._export.verifier import SpecViolationError
from torch.export import Dim
from torch.export.graph_signature import InputKind, OutputKind

warnings.simplefilter("ignore")
"""

PIPELINE = '''

# ---- export -> to_edge -> to_executorch, and the .pte on the runtime ------------------


def contiguous(args):
    """A call's tensors as independent contiguous copies: the runtime takes inputs that
    way, and the program is exported for such inputs."""

    def fresh(t):
        if t.numel() == 0:  # an empty tensor may keep odd strides through clone()
            return torch.empty(t.shape, dtype=t.dtype)
        out = t.detach().clone(memory_format=torch.contiguous_format)
        return out.requires_grad_(t.requires_grad) if t.is_leaf else out

    return tuple(pytree.tree_map_only(torch.Tensor, fresh, a) for a in args)


def dynamic_shapes(example):
    """Dim.AUTO with the ranges of DYNAMIC_DIMS, per input (None: all static)."""
    if not DYNAMIC_DIMS:
        return None
    return tuple(
        {d: Dim.AUTO(min=lo, max=hi) for d, (lo, hi) in DYNAMIC_DIMS[name].items()}
        if name in DYNAMIC_DIMS and isinstance(arg, torch.Tensor)
        else None
        for name, arg in zip(INPUT_NAMES, example)
    )


def export(example):
    return torch.export.export(
        Program(), example, dynamic_shapes=dynamic_shapes(example), strict=False
    )


def lower_to_edge(ep):
    """to_edge; an operator outside the Core ATen opset is allowed, as its error suggests."""
    allowed = []
    while True:
        try:
            config = EdgeCompileConfig(_core_aten_ops_exception_list=allowed)
            return to_edge(copy.deepcopy(ep), compile_config=config)
        except SpecViolationError as e:
            found = re.search(r"Operator (?:torch\\._ops\\.)?([\\w.]+) is not in Core", str(e))
            if not found or len(allowed) > 5:
                raise
            namespace, op, overload = found.group(1).split(".")
            allowed.append(getattr(getattr(getattr(torch.ops, namespace), op), overload))


def to_executorch(edge):
    """Greedy memory planning; tensor sizes planned at the upper bounds export declared."""
    config = ExecutorchBackendConfig(
        memory_planning_pass=MemoryPlanningPass(
            memory_planning_algo=MemoryPlanningAlgorithmSuite(algo_list=[greedy])
        ),
        sym_shape_eval_pass=ConstraintBasedSymShapeEvalPass(),
    )
    return copy.deepcopy(edge).to_executorch(config)


def lower(example):
    """(ep, edge, et), or the name of the stage that raised and its exception."""
    stage = "torch.export.export"
    try:
        ep = export(example)
        stage = "to_edge"
        edge = lower_to_edge(ep)
        stage = "to_executorch"
        return ep, edge, to_executorch(edge)
    except Exception as e:
        return stage, e


def graph_modules(program):
    """The graph module of an exported program and those of its control flow branches."""
    return [m for m in program.graph_module.modules() if isinstance(m, torch.fx.GraphModule)]


def op_schema(target):
    """The schema of an ATen operator, or of the one an edge operator wraps."""
    schema = getattr(target, "_schema", None)
    return schema if schema is not None else getattr(getattr(target, "_op", None), "_schema", None)


def ops_without_kernels(et):
    """Operators of the .pte that the installed runtime has no kernel for."""
    known = set(Runtime.get().operator_registry.operator_names)
    missing = set()
    for gm in graph_modules(et.exported_program()):
        for node in gm.graph.nodes:
            schema = op_schema(node.target) if node.op == "call_function" else None
            if schema is None:
                continue
            name = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
            if name not in known and not name.startswith("aten::sym_"):
                missing.add(name)
    return sorted(missing)


def unrunnable(missing):
    """The verdict for a .pte the installed runtime cannot run (exit 2, not "OK")."""
    why = f"UNSUPPORTED: the runtime has no kernel for {missing}"
    if any(op.startswith("fuzz::") for op in missing):
        why += (
            ": the program calls the harness's custom ops (torch.ops.fuzz.*), which the "
            "harness runs on the runtime with kernels of its own (pt2-difffuzz, "
            "fuzz/backends/exir/kernels/fuzz_ops.cpp); this script does not carry them"
        )
    return why


class Loaded:
    """The .pte loaded on the runtime (the Program must outlive its Method)."""

    def __init__(self, et):
        self.program = Runtime.get().load_program(et.buffer)
        self.method = self.program.load_method("forward")
        self.signature = et.exported_program().graph_signature

    def inputs(self, args):
        """Every input leaf; only the tensors where the method takes only those (a Python
        number export specialized may or may not stay an input of the method)."""
        flat = leaves(contiguous(args))
        tensors = [x for x in flat if isinstance(x, torch.Tensor)]
        return tensors if self.method.metadata.num_inputs() == len(tensors) != len(flat) else flat

    def run(self, args):
        """(outputs, inputs after the call): the runtime returns input mutations as
        outputs (in signature order: mutations first, then the user outputs)."""
        flat = leaves(contiguous(args))
        results = self.method.execute(self.inputs(args))
        user_inputs = [
            s.arg.name for s in self.signature.input_specs if s.kind == InputKind.USER_INPUT
        ]
        outputs, after = [], list(flat)
        for spec, value in zip(self.signature.output_specs, results):
            if spec.kind == OutputKind.USER_OUTPUT:
                outputs.append(value)
            elif spec.kind == OutputKind.USER_INPUT_MUTATION and spec.target in user_inputs:
                after[user_inputs.index(spec.target)] = value
        return outputs, after


def eager(args):
    """(outputs, inputs after the call, error) of the program run eagerly on a copy."""
    args = contiguous(args)
    try:
        outputs = leaves(program(*args))
    except Exception as e:
        return [], leaves(args), error_text(e)
    outputs = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in outputs]
    return outputs, leaves(args), None


def accepted_by_export(ep, args):
    """None when the call is inside what was exported, else why not: static sizes, the
    ranges of dynamic sizes, specialized numbers, and export's other guards. (Not with
    ep.module(): it skips its guards when any caller's file path contains "executorch",
    torch/export/_unlift.py `_ok_to_generate_guards_fn`.)"""
    flat = leaves(args)
    specs = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    sizes = {}
    for spec, value in zip(specs, flat):
        name, val = spec.arg.name, vals.get(spec.arg.name)
        if hasattr(spec.arg, "value"):  # a number export specialized to the example's
            if value != spec.arg.value or type(value) is not type(spec.arg.value):
                return f"{name}={value!r}, exported as the constant {spec.arg.value!r}"
        elif isinstance(val, torch.Tensor):
            if not isinstance(value, torch.Tensor) or value.dim() != val.dim():
                return f"{name}: not a tensor of rank {val.dim()}"
            for d, (s, v) in enumerate(zip(val.shape, value.shape)):
                if not isinstance(s, torch.SymInt):
                    if s != v:
                        return f"{name} dim {d} = {v}, exported static {s}"
                    continue
                symbol = s.node.expr
                r = ep.range_constraints.get(symbol)
                if sizes.setdefault(symbol, v) != v:
                    return f"{name} dim {d} = {v}, but {symbol} = {sizes[symbol]} elsewhere"
                if r is not None and not (r.lower <= v and (not r.upper.is_finite or v <= r.upper)):
                    return f"{name} dim {d} = {v}, outside [{r.lower}, {r.upper}]"
    inputs = dict(zip(INPUT_NAMES, args))
    for guard in getattr(ep, "_guards_code", None) or ():
        try:
            if not eval(guard, {"L": inputs}):
                return f"fails export's guard {guard}"
        except Exception:
            continue  # a guard on something else than the inputs' sizes
    return None


def the_calls():
    random.seed(0)
    torch.manual_seed(0)
    return [contiguous(args) for args in calls()]


def differences(i, who, expected, run):
    """What `who` gets wrong on call i against eager's (outputs, inputs after the call,
    error), `run()` giving its (outputs, inputs after the call): the outputs, and the
    inputs the program writes to."""
    outputs, inputs_after, error = expected
    try:
        got, got_after = run()
    except Exception as e:
        if error is not None:
            return []  # both refused the call
        return [f"call {i}: {who} raised {error_text(e)}; eager does not"]
    if error is not None:
        return [f"call {i}: eager raised {error}, {who} returned a result"]
    if len(got) != len(outputs):
        return [f"call {i}: {len(got)} outputs, eager returns {len(outputs)}"]
    problems = []
    for j, (e, a) in enumerate(zip(outputs, got)):
        if (why := mismatch(e, a)) is not None:
            problems.append(f"call {i}: output {j}: {why}")
    for j, (e, a) in enumerate(zip(inputs_after, got_after)):
        if isinstance(e, torch.Tensor) and (why := mismatch(e, a)) is not None:
            problems.append(f"call {i}: input {j} after the call: {why}")
    return problems
'''

# exir.crash, exir.runtime-result
RUN = '''

# ---- the check ---------------------------------------------------------------------


def check():
    """Every stage succeeds, and every call the exported program accepts returns on the
    runtime what eager returns (outputs, and inputs the program writes to)."""
    all_calls = the_calls()
    built = lower(all_calls[EXAMPLE_CALL])
    if isinstance(built[0], str):
        return [f"{built[0]} raised {error_text(built[1])}"]
    ep, edge, et = built
    missing = ops_without_kernels(et)
    if missing:
        return unrunnable(missing)
    print("loading the .pte on the runtime", flush=True)
    try:
        loaded = Loaded(et)
    except Exception as e:
        return [f"loading the .pte raised {error_text(e)}"]
    problems = []
    for i, args in enumerate(all_calls):
        if (why := accepted_by_export(ep, args)) is not None:
            print(f"note: call {i} is outside what was exported ({why}): not run")
            continue
        print(f"running call {i} on the runtime", flush=True)
        problems += differences(i, "the runtime", eager(args), lambda: loaded.run(args))
    return problems
'''

# exir.edge-result
EDGE = '''

# ---- the check ---------------------------------------------------------------------


def lower_edge(example):
    """(ep, edge), or the name of the stage that raised and its exception."""
    stage = "torch.export.export"
    try:
        ep = export(example)
        stage = "to_edge"
        return ep, lower_to_edge(ep)
    except Exception as e:
        return stage, e


def graph_inputs(program, flat):
    """The flat inputs of the program's graph: its lifted parameters, buffers and
    constants, and the call's leaves, in the order of its input specs."""
    user = iter(flat)
    out = []
    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            out.append(next(user))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            state = program.state_dict
            held = state if spec.target in state else program.constants
            out.append(held[spec.target])
        else:  # CONSTANT_TENSOR, CUSTOM_OBJ, TOKEN
            out.append(program.constants.get(spec.target))
    return out


def run_edge(program, args):
    """(outputs, inputs after the call) of the edge program run in eager, node by node:
    each edge operator runs the ATen kernel it wraps. The graph is functional: it returns
    the inputs it writes to as outputs (in signature order: mutations first, then the
    user outputs), as the runtime does."""
    flat = leaves(contiguous(args))
    with torch.no_grad():
        results = torch.fx.Interpreter(program.graph_module).run(*graph_inputs(program, flat))
    signature = program.graph_signature
    user_inputs = [s.arg.name for s in signature.input_specs if s.kind == InputKind.USER_INPUT]
    outputs, after = [], list(flat)
    for spec, value in zip(signature.output_specs, results):
        if spec.kind == OutputKind.USER_OUTPUT:
            outputs.append(value)
        elif spec.kind == OutputKind.USER_INPUT_MUTATION and spec.target in user_inputs:
            after[user_inputs.index(spec.target)] = value
    return outputs, after


def check():
    """Export and to_edge succeed, and every call the exported program accepts returns
    from the edge program, run in eager, what eager returns (outputs, and inputs the
    program writes to).

    Why the edge program: the ExecuTorch runtime had no kernel for an operator of the
    lowered program, so its result could not be compared. The edge program is what
    to_edge produced (its decompositions to the Core ATen opset and its edge passes),
    before to_executorch and the runtime: a difference here is a fault of to_edge or of a
    decomposition it applied, whatever the runtime's kernels."""
    all_calls = the_calls()
    built = lower_edge(all_calls[EXAMPLE_CALL])
    if isinstance(built[0], str):
        return [f"{built[0]} raised {error_text(built[1])}"]
    ep, edge = built
    program = edge.exported_program()
    problems = []
    for i, args in enumerate(all_calls):
        if (why := accepted_by_export(ep, args)) is not None:
            print(f"note: call {i} is outside what was exported ({why}): not run")
            continue
        print(f"running call {i} on the edge program", flush=True)
        problems += differences(
            i, "the edge program", eager(args), lambda: run_edge(program, args)
        )
    return problems
'''
