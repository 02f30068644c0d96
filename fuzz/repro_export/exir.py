"""The EXIR repro scripts, in ExecuTorch's own idiom.

Results (a crash, wrong values, a written input) are checked at the cheapest pipeline
stage that shows them, which names the tracker:

  export           torch.export.export, then `ep.module()` against eager    pytorch/pytorch
  decompositions   `ep.run_decompositions().module()` against eager         pytorch/pytorch
  to_edge          `to_edge(ep).exported_program().module()` against eager  pytorch/executorch
  runtime          `to_edge(ep).to_executorch()` on the pip runtime         pytorch/executorch

The other checks need the lowered program (pytorch/executorch):

  contract  an input just outside what was exported must be refused by the runtime
  bounds    each data-dependent output planned within the bound the program declares
            (`torch._check` in a fake kernel or the program, range_constraints)
  sizes     each output planned at least as large as eager's value on the call
  overlap   no two live tensors share bytes (ExecuTorch's own memory_planning.Verifier)
  variance  the plan must not change when SpecPropPass runs once more before memory
            planning (as backends that re-run it do), through to_executorch's
            `sym_shape_eval_pass` slot

Every check prints the numbers it compares and ends on `torch.testing.assert_close` or an
`assert`: the script exits 1 when the problem shows, 0 when it does not.
"""

from __future__ import annotations

from fuzz.oracles.results import TOLERANCES
from fuzz.repro_export.inputs import Form, Inputs
from fuzz.repro_export.script import Script
from fuzz.repro_export.source import custom_ops_source, module_source
from fuzz.repro_export.subject import Subject

PYTORCH, EXECUTORCH = "pytorch/pytorch", "pytorch/executorch"
RESULT_STAGES = ("export", "decompositions", "to_edge", "runtime")
PLAN_CHECKS = ("bounds", "sizes", "overlap")
TRACKER = {"export": PYTORCH, "decompositions": PYTORCH}  # every other stage: EXECUTORCH
WHAT = {
    "export": "`torch.export.export`, then the exported program's `module()`",
    "decompositions": "`ExportedProgram.run_decompositions()`, then its `module()`",
    "to_edge": "`to_edge`, then the edge program's `module()`",
    "runtime": "`to_edge(...).to_executorch()` on the ExecuTorch runtime",
    "contract": "the ExecuTorch runtime, fed an input the exported program rejects",
    "plan": "the memory plan `to_executorch()` makes",
    "variance": "`to_executorch()` with SpecPropPass run once more before memory planning",
}
# The XNNPACK lane's pipeline: the same script, lowered with the partitioner.
_WHAT_XNNPACK = WHAT | {
    "runtime": "`to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])"
    ".to_executorch()` on the ExecuTorch runtime",
}


def what(lane: str) -> dict[str, str]:
    """What each stage's script runs, for the issue text of `lane`'s scripts."""
    return _WHAT_XNNPACK if lane == "xnnpack" else WHAT


_LABEL = {
    "export": "exported",
    "decompositions": "decomposed",
    "to_edge": "edge",
    "runtime": "executorch",
}
_RUN = {
    "export": "ep.module()",
    "decompositions": "decomposed.module()",
    "to_edge": "edge.exported_program().module()",
}


def tolerance_args(subject: Subject) -> str:
    """`, rtol=..., atol=...` for the float dtypes compared (the loosest where several):
    the tolerances the differential checks use, which for float32 and the half types are
    looser than assert_close's defaults (compilers reorder reductions)."""
    known = [TOLERANCES[d] for d in subject.float_dtypes if d in TOLERANCES]
    if not known:
        return ""
    rtol, atol = max(r for r, _ in known), max(a for _, a in known)
    return f", rtol={rtol}, atol={atol}"


# What each contract probe is, for the comment above it.
_PROBE_WHY = {
    "upper": "one above a dynamic size's exported maximum",
    "lower": "one below a dynamic size's exported minimum",
    "guard": "a size inside the exported range that fails one of export's guards",
    "static": "one more row than the static size the program was exported with",
}


def tracker(stage: str) -> str:
    return TRACKER.get(stage, EXECUTORCH)


def _indent(text: str) -> str:
    return "\n".join(("    " + ln) if ln else ln for ln in text.splitlines())


class ExirScripts:
    def __init__(self, subject: Subject):
        self.s = subject

    def script(self, stage: str, checks: tuple[str, ...], form: Form, probe: int = 0) -> Script:
        """One script: the pipeline up to `stage` (results) or to the runtime/plan (the
        other checks), then `checks` in order ("values", "contract", "bounds", "sizes",
        "overlap", "variance")."""
        s = self.s
        script = Script().need("import torch")
        inputs = Inputs(s, form.values)
        needs = set(checks) - {"values"}
        depth = stage if "values" in checks else "export"
        if needs & {"contract"}:
            depth = "runtime"
        elif needs and depth != "runtime":
            depth = "plan"
        lowered = depth not in ("export", "decompositions")
        planned = depth in ("runtime", "plan")
        if s.dims:
            script.need("from torch.export import Dim")
        delegated = s.lane == "xnnpack"
        if lowered and delegated:
            script.need("from executorch.exir import to_edge_transform_and_lower")
            script.need(
                "from executorch.backends.xnnpack.partition.xnnpack_partitioner "
                "import XnnpackPartitioner"
            )
        elif lowered:
            script.need("from executorch.exir import to_edge")
        if lowered:
            if s.non_core:
                script.need("from executorch.exir import EdgeCompileConfig")
        if depth == "runtime":
            script.need("from executorch.runtime import Runtime")
        if form.values == "calls":
            if s.code.uses_random:
                script.need("import random")
            if s.mutated:
                script.need("import copy")
        script.add(custom_ops_source(s.code.custom_ops, planned=planned, thunder=False))
        script.add(s.code.helpers)
        model_def, model = module_source(s.code)
        script.add(model_def)
        if "variance" in checks:
            script.add(
                "class SpecPropAgain(ConstraintBasedSymShapeEvalPass):\n"
                "    # what a backend that runs SpecPropPass once more before planning does\n"
                "    def call(self, graph_module):\n"
                "        return super().call(SpecPropPass()(graph_module).graph_module)"
            )
        setup = [inputs.preamble()] if inputs.preamble() else []
        setup += [f"model = {model}", inputs.bind(s.example)]
        setup.append(
            f"ep = torch.export.export(model, {inputs.as_tuple}{self._dynamic_shapes(inputs)})"
        )
        if lowered and delegated:
            setup.append(
                "edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]"
                f"{self._edge_config()})"
            )
        elif lowered:
            setup.append(f"edge = to_edge(ep{self._edge_config()})")
        script.add("\n".join(setup))
        if depth == "decompositions":
            block = ["decomposed = ep.run_decompositions()"]
            if s.dims:
                block.append(
                    'print("range_constraints:", ep.range_constraints, "->", '
                    "decomposed.range_constraints)"
                )
            script.add("\n".join(block))
        early = "values" in checks and stage != "runtime" and planned
        if early:  # before to_executorch, which changes the edge program in place
            script.add(self._values(stage, inputs, form))
        lowering = []
        if planned:
            lowering.append("et = edge.to_executorch()")
        if depth == "runtime":
            lowering.append(
                "pte = Runtime.get().load_program(et.buffer)  # kept alive while its method runs"
            )
            lowering.append('method = pte.load_method("forward")')
        if lowering and early:
            script.add("\n".join(lowering))
        elif lowering:
            script.blocks[-1] += "\n" + "\n".join(lowering)
        for check in checks:
            if check == "values" and not early:
                script.add(self._values(stage, inputs, form))
            elif check == "contract":
                script.add(self._contract(inputs, probe))
            elif check in PLAN_CHECKS:
                script.add(self._plan(check, inputs, form, script))
            elif check == "variance":
                script.add(self._variance(inputs, script))
        return script.seeded()

    # ---- pieces -----------------------------------------------------------------------

    def _dynamic_shapes(self, inputs: Inputs) -> str:
        s = self.s
        if not s.dims:
            return ""

        def dims(name: str) -> str:
            ranges = s.dims.get(name)
            if not ranges:
                return "None"
            inner = ", ".join(
                f"{d}: Dim.AUTO(min={lo}, max={hi})" for d, (lo, hi) in ranges.items()
            )
            return "{" + inner + "}"

        if inputs.names:
            body = ", ".join(f'"{n}": {dims(n)}' for n in inputs.names)
            return ", dynamic_shapes={" + body + "}"
        body = ", ".join(dims(n) for n in s.case.input_names())
        return f", dynamic_shapes=(({body},),)"

    def _edge_config(self) -> str:
        if not self.s.non_core:
            return ""
        ops = ", ".join(f"torch.ops.{name}" for name in self.s.non_core)
        return f", compile_config=EdgeCompileConfig(_core_aten_ops_exception_list=[{ops}])"

    def _flat(self, value: str) -> str:
        """A result as the runtime returns it: its tensors, flattened, in a list."""
        return {"tensor": f"[{value}]", "flat": f"list({value})"}.get(
            self.s.outputs, f"torch.utils._pytree.tree_leaves({value})"
        )

    def _values(self, stage: str, inputs: Inputs, form: Form) -> str:
        s = self.s
        if form.call is None:  # every checkable call, in a loop over calls()
            listed = ", ".join(str(c.index) for c in s.checkable)
            listed += "," if len(s.checkable) == 1 else ""
            bind = f"{inputs.as_tuple} = inputs[i]" if inputs.names else "args = inputs[i]"
            body = 'print(f"call {i}:")\n' + bind + "\n" + self._compare(stage, inputs, "i")
            return f"for i in ({listed}):\n" + _indent(body)
        lines = []
        if form.call != s.example and (not s.mutated or form.raises):
            lines.append(inputs.bind(form.call, "a call the exported program accepts"))
        if form.raises:
            lines.append(self._refuses(stage, inputs))
        else:
            lines.append(self._compare(stage, inputs, form.call))
        return "\n".join(lines)

    def _refuses(self, stage: str, inputs: Inputs) -> str:
        """A call eager refuses: the stage must refuse it too, not return (or die)."""
        run = (
            f"method.execute({inputs.as_list})"
            if stage == "runtime"
            else f"{_RUN[stage]}({inputs.args})"
        )
        label = _LABEL[stage]
        return "\n".join(
            [
                "try:",
                f"    model({inputs.args})",
                "except Exception as e:",
                '    print("eager raises:", e, flush=True)',
                "try:",
                f"    actual = {run}",
                "except Exception as e:",
                f'    print("{label} raises too:", e)',
                "else:",
                f'    print("{label} returns", actual)',
                "    raise SystemExit(1)",
            ]
        )

    def _compare(self, stage: str, inputs: Inputs, index: int | str) -> str:
        """`expected` (eager) against `actual` (the stage) on the bound call, printed,
        then compared; written inputs too where the program writes any."""
        s, label = self.s, _LABEL[stage]
        lines = []
        if s.mutated:
            fresh = inputs.fresh(index) if isinstance(index, int) else "copy.deepcopy(inputs[i])"
            lines += [f"eager_args, args = {fresh}, {fresh}", "expected = model(*eager_args)"]
            call = "*args"
        else:
            call = inputs.args
            lines.append(f"expected = model({call})")
        if stage == "runtime":
            fed = "list(args)" if s.mutated else inputs.as_list
            lines.append(f"actual = method.execute({fed})")
            want = self._flat("expected")
            if s.mutated:  # the runtime returns the inputs it writes first
                written = ", ".join(f"eager_args[{i}]" for i in s.mutated)
                want = f"[{written}, *{want}]"
            compare = f"actual, {want}"
        else:
            lines.append(f"actual = {_RUN[stage]}({call})")
            compare = "(actual, args), (expected, eager_args)" if s.mutated else "actual, expected"
        width = max(len("eager"), len(label)) + 1
        if s.mutated and stage != "runtime":
            lines.append(f'print("{"eager:".ljust(width)}", expected, "inputs after:", eager_args)')
            lines.append(f'print("{(label + ":").ljust(width)}", actual, "inputs after:", args)')
        else:
            lines.append(f'print("{"eager:".ljust(width)}", expected)')
            lines.append(f'print("{(label + ":").ljust(width)}", actual)')
        lines.append(f"torch.testing.assert_close({compare}{tolerance_args(s)})")
        return "\n".join(lines)

    def _contract(self, inputs: Inputs, probe: int) -> str:
        from fuzz.repro_export.values import call_source

        s = self.s
        p = s.probes[probe]
        sources = call_source(p.args, s.device, exact=False) or []
        if inputs.names:
            bind = "\n".join(f"{n} = {src}" for n, src in zip(inputs.names, sources))
        else:
            bind = "args = (" + ", ".join(sources) + ("," if len(sources) == 1 else "") + ")"
        return "\n".join(
            [
                f"# {_PROBE_WHY[p.kind]}",
                bind,
                "try:",
                f"    ep.module()({inputs.args})",
                "except Exception as e:",
                '    print("the exported program rejects it:", e, flush=True)',
                "try:",
                f"    actual = method.execute({inputs.as_list})",
                "except RuntimeError as e:",
                '    print("the runtime rejects it too:", e)',
                "else:",
                '    print("the runtime accepts it and returns", actual)',
                "    raise SystemExit(1)",
            ]
        )

    def _plan(self, check: str, inputs: Inputs, form: Form, script: Script) -> str:
        s = self.s
        lines = []
        if "outputs = " not in "\n".join(script.blocks):
            lines.append("outputs = et.exported_program().graph.output_node().args[0]")
        written = len(s.mutated)
        if check == "bounds":
            checked = [(i, b) for i, b in enumerate(s.output_bounds) if b is not None]
            at = ", ".join(str(written + i) for i, _ in checked) + (
                "," if len(checked) == 1 else ""
            )
            declared = [b for _, b in checked]
            script.need("import math")
            lines += [
                'print("range_constraints:", ep.range_constraints)',
                f'planned = [math.prod(outputs[i].meta["spec"].shape) for i in ({at})]',
                f'print("planned elements:", planned, "declared at most:", {declared})',
                f"assert all(p <= d for p, d in zip(planned, {declared}))",
            ]
        elif check == "sizes":
            index = form.call if form.call is not None else s.checkable[0].index
            if index != s.example:
                lines.append(inputs.bind(index, "a call the exported program accepts"))
            values = self._flat(f"model({inputs.args})")
            if s.mutated:
                written_values = ", ".join(
                    inputs.names[i] if inputs.names else f"args[{i}]" for i in s.mutated
                )
                values = f"[{written_values}, *{values}]"
            lines += [
                'planned = [o.meta["spec"].allocated_memory for o in outputs]',
                f"needed = [t.nbytes for t in {values}]",
                'print("planned bytes per output:", planned, "eager\'s:", needed)',
                "assert all(p >= n for p, n in zip(planned, needed))",
            ]
        else:  # overlap
            script.need("from executorch.exir.memory_planning import Verifier")
            lines += [
                "planned = et.exported_program()",
                "# raises when two tensors that are live at once share bytes",
                "Verifier(planned.graph_module, True, True, True, planned.graph_signature)"
                ".verify_storage_reuse()",
            ]
        return "\n".join(lines)

    def _variance(self, inputs: Inputs, script: Script) -> str:
        script.need("from executorch.exir import ExecutorchBackendConfig")
        script.need("from executorch.exir.passes import SpecPropPass")
        script.need(
            "from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass"
        )
        # to_executorch changes the program it lowers, and a re-trace teaches the shared
        # ShapeEnv guards: the second pipeline starts from an export of its own
        again = f"torch.export.export(model, {inputs.as_tuple}{self._dynamic_shapes(inputs)})"
        return "\n".join(
            [
                f"again = to_edge({again}{self._edge_config()}).to_executorch(",
                "    ExecutorchBackendConfig(sym_shape_eval_pass=SpecPropAgain())",
                ")",
                "shapes = [",
                "    # each planned tensor's shape (its upper bound), in graph order",
                "    [list(spec.shape) for n in p.exported_program().graph.nodes",
                '     for spec in torch.utils._pytree.tree_leaves(n.meta.get("spec")) '
                'if hasattr(spec, "shape")]',
                "    for p in (et, again)",
                "]",
                'print("planned shapes:", shapes[0], "with SpecPropPass run again:", shapes[1])',
                "assert shapes[0] == shapes[1]",
            ]
        )
