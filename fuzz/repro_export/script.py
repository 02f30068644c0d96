"""Compose one repro script from a case: the case's own code, then the lane's steps and
one check, from the templates in this package.

`plan(case)` decides what the script checks (the case's divergence kinds: EXPECT and
the kinds of FOUND, else the kinds its docstring names) and how the lane would run it
(dynamic dims, the export example); `render(case)` writes the script's text.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from fuzz.case import METADATA, Case
from fuzz.divergence import KINDS
from fuzz.oracles.results import TOLERANCES
from fuzz.repro_export import (
    common,
    custom_ops_template,
    exir_checks_template,
    exir_template,
    thunder_template,
)

# What each lane's script can check, and which template does it.
EXIR_CHECKS = {
    "exir.crash": "RUN",
    "exir.runtime-result": "RUN",
    "exir.edge-result": "EDGE",
    "exir.unchecked-contract": "CONTRACT",
    "exir.bound-loss": "BOUNDS",
}
THUNDER_CHECKS = {
    "thunder.crash": "crash",
    "thunder.wrong-result": "wrong-result",
    "thunder.aliasing": "aliasing",
    "thunder.unsound-hit": "unsound-hit",
}
# Kinds whose divergence needs more than the stack's own pipeline, and why.
NOT_CHECKABLE = {
    "exir.pipeline-variance": (
        "this divergence shows only when SpecPropPass is run again at a point of "
        "to_executorch's pass list where ExecuTorch's pipeline does not run it; that needs "
        "a copy of to_executorch's internal pass loop with the extra pass inserted, which "
        "this script does not carry (the harness's fuzz/backends/exir/mirror.py)."
    ),
    "exir.spec-meta": (
        "this divergence is read from the TensorSpecs between SpecPropPass and the "
        "sym-shape pass, inside to_executorch; no public step exposes them."
    ),
    "exir.overlap": "the planner's interval check needs the harness's mapping of planned tensors.",
    "exir.under-allocation": (
        "planned buffers are compared with the values an interpreter computes for each node; "
        "that mapping is the harness's own."
    ),
    "exir.aliasing": "the plan's alias classes are read with the harness's mapping.",
}


@dataclasses.dataclass
class Plan:
    lane: str
    kinds: tuple[str, ...]  # the divergence kinds the case shows
    check: str | None  # EXIR: RUN / EDGE / CONTRACT / BOUNDS; Thunder: "thunder"; None: unsupported
    why_unsupported: str = ""
    thunder_checks: tuple[str, ...] = ()
    dims: dict = dataclasses.field(default_factory=dict)  # input name -> {dim: (lo, hi)}
    example: int = 0


def case_kinds(case: Case, meta: dict) -> tuple[str, ...]:
    # EXPECT is what shows with every fix on, FOUND what the stock stack showed when filed
    found = tuple(dict.fromkeys(f.split("@")[0] for f in meta.get("FOUND") or ()))
    if case.expect or found:
        return tuple(dict.fromkeys(case.expect + found))
    named = re.findall(r"\b((?:exir|thunder)\.[a-z-]+[a-z])", case.doc)
    return tuple(dict.fromkeys(k for k in named if k in KINDS))


def plan(case: Case, meta: dict, lane: str, dims: dict, example: int) -> Plan:
    kinds = case_kinds(case, meta)
    out = Plan(lane, kinds, None, dims=dims, example=example)
    if lane == "thunder":
        checks = tuple(THUNDER_CHECKS[k] for k in kinds if k in THUNDER_CHECKS)
        if checks:
            out.check, out.thunder_checks = "thunder", checks
        else:
            out.why_unsupported = f"no Thunder check for the kinds {list(kinds)}"
        return out
    checks = [EXIR_CHECKS[k] for k in kinds if k in EXIR_CHECKS]
    if checks:
        out.check = checks[0]
    else:
        reasons = [NOT_CHECKABLE.get(k, f"no check for {k}") for k in kinds] or [
            "the case names no divergence kind"
        ]
        out.why_unsupported = " ".join(f"{k}: {r}" for k, r in zip(kinds, reasons)) or reasons[0]
    return out


# ---- the case's own code ---------------------------------------------------------------


def case_code(source: str) -> tuple[str, list[str]]:
    """The case's statements without its docstring, metadata and harness imports (its
    program and calls() verbatim), and the harness custom ops it calls."""
    tree = ast.parse(source)
    lines = source.splitlines()
    kept: list[str] = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring: it goes into ISSUE.md and the script's header
        if isinstance(node, ast.Import) and all(
            a.name.split(".")[0] in ("fuzz", "fixes") or (a.name == "torch" and not a.asname)
            for a in node.names
        ):
            # torch is imported by the script's header, the harness never; an alias of a
            # torch module (`import torch.nn.functional as F`) stays: the header binds
            # no `F`, and without it eager and the stack both raise NameError alike.
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
            "fuzz",
            "fixes",
        ):
            continue
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in METADATA for t in node.targets
        ):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        kept.append("\n".join(lines[start - 1 : node.end_lineno]))
    ops = sorted(set(re.findall(r"torch\.ops\.fuzz\.(\w+)", source)))
    return "\n\n\n".join(kept), ops


def custom_ops_code(ops: list[str], lane: str) -> str:
    if not ops:
        return ""
    unknown = [op for op in ops if op not in custom_ops_template.OPS]
    if unknown:
        raise ValueError(f"the case calls custom ops this exporter does not know: {unknown}")
    text = custom_ops_template.PRELUDE + "".join(custom_ops_template.OPS[op] for op in ops)
    shape_ops = [op for op in ops if op in ("head", "bmul")]
    if lane == "thunder" and shape_ops:
        text += (
            "\n\n# Thunder runs torch.library custom ops once they are registered with it.\n"
            "from thunder.torch.custom_op import _register_custom_op  # noqa: E402\n\n"
            + "".join(f"_register_custom_op({op})\n" for op in shape_ops)
        )
    return text


# ---- the script ------------------------------------------------------------------------


def header(case: Case, p: Plan, versions: dict[str, str], summary: str) -> str:
    stack = "ExecuTorch (torch.export -> to_edge -> to_executorch -> runtime)"
    if p.lane == "thunder":
        stack = 'lightning-thunder (thunder.jit(program, cache="symbolic values"))'
    pins = ", ".join(f"{k} {v}" for k, v in versions.items())
    return (
        f'"""{summary}\n\n'
        f"Stack: {stack}.\nExported on: {pins}.\n"
        f"Upstream: {case.upstream or 'no report found'}\n\n"
        "Run: python -I repro.py. Exit 1 and DIVERGES: ... when the problem reproduces,\n"
        "exit 0 and OK: ... when it does not"
        + (", exit 2 and UNSUPPORTED: ... when this script cannot check it" if not p.check else "")
        + '.\n"""\n\n'
    )


def wrapper(case: Case) -> str:
    """`Program`: the nn.Module torch.export takes, calling `program` with its own names."""
    import torch

    if isinstance(case.program, torch.nn.Module):
        return "\n\ndef Program():\n    return program\n"
    names = ", ".join(case.input_names())
    return (
        "\n\nclass Program(torch.nn.Module):\n"
        f"    def forward(self, {names}):\n        return program({names})\n"
    )


def render(case: Case, meta: dict, p: Plan, versions: dict[str, str]) -> str:
    summary = (case.doc.split("\n\n")[0].replace("\n", " ").strip() or case.name).replace(
        '"""', "'''"
    )
    code, ops = case_code(case.source)
    tolerances = common.COMPARE.replace("@@TOLERANCES@@", common.tolerance_lines(TOLERANCES))
    parts = [header(case, p, versions, summary)]
    parts.append(thunder_template.IMPORTS if p.lane == "thunder" else exir_template.IMPORTS)
    parts.append(custom_ops_code(ops, p.lane))
    parts.append(
        "\n\n# ---- the program and its calls ----------------------------------------\n\n"
    )
    parts.append(code + "\n")
    parts.append(tolerances)
    if p.check is None:
        parts.append(f"\nWHY_UNSUPPORTED = {p.why_unsupported!r}\nEXPECTED = ''\n")
        parts.append(common.UNSUPPORTED)
    elif p.lane == "thunder":
        parts.append(
            f"\n# The differences from eager checked here.\nCHECKS = {p.thunder_checks!r}\n"
            f"EXPECTED = {'every call matches eager (' + ', '.join(p.thunder_checks) + ')'!r}\n"
        )
        parts.append(thunder_template.RUN)
        if "unsound-hit" in p.thunder_checks:
            parts.append(thunder_template.TRACES)
        parts.append(thunder_template.CHECK)
    else:
        expected = {
            "RUN": "every stage succeeds and every call matches eager on the runtime",
            "EDGE": "export and to_edge succeed and the edge program matches eager on every call",
            "CONTRACT": "the runtime rejects every input outside what was exported",
            "BOUNDS": "every data-dependent output is planned within its declared bound",
        }[p.check]
        parts.append(
            f"\nINPUT_NAMES = {case.input_names()!r}\n"
            "# Dynamic dims, exported as Dim.AUTO(min=lo, max=hi): {input: {dim: (lo, hi)}}.\n"
            f"DYNAMIC_DIMS = {p.dims!r}\n"
            "# The call the program is exported with (the first whose dynamic dims are >= 2).\n"
            f"EXAMPLE_CALL = {p.example}\nEXPECTED = {expected!r}\n"
        )
        parts.append(wrapper(case))
        parts.append(exir_template.PIPELINE)
        own = {"RUN": exir_template.RUN, "EDGE": exir_template.EDGE}
        parts.append(own.get(p.check) or getattr(exir_checks_template, p.check))
    parts.append(common.MAIN if not case.isolate else common.MAIN_ISOLATED)
    return "".join(parts)
