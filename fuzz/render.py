"""Rendering programs and call plans to case-file source (the format in fuzz/case.py).

Execution always goes through this source, so what the harness reports is exactly what
it ran, and a compiler engineer can paste it into a bug report as is.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from fuzz.calls import CallPlan
from fuzz.ops.spec import TensorType
from fuzz.program import Node, Program

_FIELD = re.compile(r"\{([A-Za-z_]\w*)\}")
_OPERAND = re.compile(r"\{(\d+)\}")


def render_node(program: Program, node: Node) -> str:
    fields = {k: str(v) for k, v in node.attrs}
    fields["out"] = program.name(node.outputs[0])
    for i, v in enumerate(node.outputs):
        fields[f"out{i}"] = program.name(v)
    text = _FIELD.sub(lambda m: fields.get(m.group(1), m.group(0)), node.spec.template)
    return _OPERAND.sub(lambda m: program.name(node.args[int(m.group(1))]), text)


def render_program(program: Program) -> str:
    params = ", ".join(program.name(i) for i in range(program.n_inputs))
    body = "\n".join(render_node(program, n) for n in program.nodes)
    outs = ", ".join(program.name(v) for v in program.outputs)
    return f"def program({params}):\n{textwrap.indent(body, '    ')}\n    return ({outs},)\n"


def _shape(program: Program, i: int, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(
        int(d.subs({s: sizes[s.name] for s in d.free_symbols}))
        for d in program.input_types[i].shape
    )


def make_tensor(shape: tuple[int, ...], dtype: str) -> str:
    """Source that makes a random tensor of `shape` and `dtype` (drawn from torch's RNG,
    which `fuzz.tensors.materialize` seeds)."""
    if dtype == "bool":
        return f"torch.randint(0, 2, {shape}).bool()"
    if dtype == "int64":
        return f"torch.randint(-4, 5, {shape})"
    if dtype == "float32":
        return f"torch.randn{shape}"
    return f"torch.randn({shape}, dtype=torch.{dtype})"


def render_calls(program: Program, plans: Sequence[CallPlan]) -> str:
    lines = ["def calls():", "    out = []"]
    for k, plan in enumerate(plans):
        sizes = dict(plan.sizes)
        lines.append(f"    # call {k}: " + ", ".join(f"{n}={v!r}" for n, v in plan.sizes))
        names = []
        for i, layout in enumerate(plan.layouts):
            t = program.input_types[i]
            if not isinstance(t, TensorType):
                names.append(repr(sizes[t.symbol.name]))
                continue
            shape = _shape(program, i, sizes)
            name = f"x{i}_{k}"
            viewers = [j for j, other in enumerate(plan.layouts) if other == f"view:{i}"]
            if viewers:
                wide = shape[:-1] + (2 * shape[-1],)
                lines.append(f"    base{i}_{k} = {make_tensor(wide, t.dtype)}")
                lines.append(f"    {name} = base{i}_{k}[..., :{shape[-1]}]")
            elif layout.startswith("same:"):
                name = names[int(layout[5:])]
            elif layout.startswith("view:"):
                src = int(layout[5:])
                lines.append(f"    {name} = base{src}_{k}[..., {shape[-1]}:]")
            elif layout == "transposed":
                flipped = shape[:-2] + (shape[-1], shape[-2])
                lines.append(f"    {name} = {make_tensor(flipped, t.dtype)}.transpose(-2, -1)")
            else:
                lines.append(f"    {name} = {make_tensor(shape, t.dtype)}")
            names.append(name)
        lines.append(f"    out.append(({', '.join(names)},))")
    lines.append("    return out")
    return "\n".join(lines) + "\n"


def render_dims(program: Program) -> dict[str, dict[int, tuple[int, int]]]:
    """Dynamic ranges of every symbolic tensor input dim, for torch.export (number inputs
    are not dims: export specializes them)."""
    dims: dict[str, dict[int, tuple[int, int]]] = {}
    for i in program.tensor_inputs():
        for k, d in enumerate(program.input_types[i].shape):
            if d.free_symbols:
                dims.setdefault(program.name(i), {})[k] = program.symbols.range(d)
    return dims


def op_lines(program: Program, first_line: int) -> dict[int, str]:
    """{source line: op name} for the body of `render_program(program)`, whose first body
    line is `first_line` (lets a lane name the op a failure comes from)."""
    out, line = {}, first_line
    for node in program.nodes:
        text = render_node(program, node)
        for k in range(text.count("\n") + 1):
            out[line + k] = node.op
        line += text.count("\n") + 1
    return out


def render_case(
    program: Program, plans: Sequence[CallPlan], doc: str = "", lanes: Sequence[str] | None = None
) -> str:
    imports = dict.fromkeys(line for n in program.nodes for line in n.spec.imports)
    head = [f'"""{doc or "Generated program."}"""', "", "import torch", *sorted(imports)]
    prefix = "\n".join(head) + "\n\n\n"
    meta = {
        "families": sorted(program.families),
        "decisions": sorted(program.decision_kinds),
        "ops": [n.op for n in program.nodes],
        "inputs": [
            f"{t.numeric} number" if i in program.number_inputs() else t.dtype
            for i, t in enumerate(program.input_types)
        ],
        # `def program` is the line after the prefix; the body starts on the next one.
        "lines": op_lines(program, prefix.count("\n") + 2),
    }
    tail = [f"DIMS = {render_dims(program)!r}", f"META = {meta!r}"]
    if lanes:
        tail.insert(0, f"LANES = {tuple(lanes)!r}")
    return (
        prefix
        + render_program(program)
        + "\n\n"
        + render_calls(program, plans)
        + "\n\n"
        + "\n".join(tail)
        + "\n"
    )
