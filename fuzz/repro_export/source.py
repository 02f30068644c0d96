"""The program of a case file as repro-script source: its own code, in the owner's idiom.

For torch.export the program becomes `class M(torch.nn.Module)` whose `forward` is the
program's body (a program that is already a Module instance stays one); for Thunder it
stays the function it is. Helpers the program uses (other functions, classes, imports
such as `import torch.nn.functional as F`) are kept as written. The harness's custom ops
(`torch.ops.fuzz.*`) move to the `mylib` namespace that torch's own docs use, defined in
the script with `torch.library`; their `.out` overloads (which ExecuTorch needs to plan
them) only where the script runs `to_executorch`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import textwrap

from fuzz.case import METADATA, Case
from fuzz.errors import FuzzError

NAMESPACE = "mylib"
_FUZZ_OP = re.compile(r"torch\.ops\.fuzz\.(\w+)")

# Each custom op the generator draws, as the script defines it: (functional definition,
# its .out overload). The fake kernels state the same bounds as fuzz/custom_ops.py.
_DATA_DEPENDENT_FAKE = """

@torch.library.register_fake("mylib::{name}")
def _(x{extra}):
    n = torch.library.get_ctx().new_dynamic_size()
    torch._check(n <= {bound})
    return x.new_empty(n)
"""
CUSTOM_OPS = {
    "positive": (
        'lib.define("positive(Tensor x) -> Tensor")\n'
        'lib.impl("positive", lambda x: x.flatten()[x.flatten() > 0], "CompositeExplicitAutograd")'
        + _DATA_DEPENDENT_FAKE.format(name="positive", extra="", bound="x.numel()"),
        'lib.define("positive.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")\n'
        'torch.library.register_fake("mylib::positive.out")(lambda x, *, out: out)',
    ),
    "positive_head": (
        'lib.define("positive_head(Tensor x, int k) -> Tensor")\n'
        'lib.impl("positive_head", lambda x, k: x.flatten()[x.flatten() > 0][:k].clone(), '
        '"CompositeExplicitAutograd")'
        + _DATA_DEPENDENT_FAKE.format(name="positive_head", extra=", k", bound="k"),
        'lib.define("positive_head.out(Tensor x, int k, *, Tensor(a!) out) -> Tensor(a!)")\n'
        'torch.library.register_fake("mylib::positive_head.out")(lambda x, k, *, out: out)',
    ),
    "split_sign": (
        'lib.define("split_sign(Tensor x) -> (Tensor, Tensor)")\n'
        'lib.impl("split_sign", lambda x: (x.flatten()[x.flatten() > 0], '
        'x.flatten()[x.flatten() <= 0]), "CompositeExplicitAutograd")\n\n\n'
        '@torch.library.register_fake("mylib::split_sign")\n'
        "def _(x):\n"
        "    sizes = [torch.library.get_ctx().new_dynamic_size() for _ in range(2)]\n"
        "    for n in sizes:\n"
        "        torch._check(n <= x.numel())\n"
        "    return x.new_empty(sizes[0]), x.new_empty(sizes[1])\n",
        'lib.define("split_sign.out(Tensor x, *, Tensor(a!) pos, Tensor(b!) nonpos) '
        '-> (Tensor(a!), Tensor(b!))")\n'
        'torch.library.register_fake("mylib::split_sign.out")'
        "(lambda x, *, pos, nonpos: (pos, nonpos))",
    ),
    "head": (
        '@torch.library.custom_op("mylib::head", mutates_args=())\n'
        "def head(x: torch.Tensor, n: int) -> torch.Tensor:\n"
        "    # the first n elements of x, flattened, zero-padded to n\n"
        "    return torch.nn.functional.pad(x.flatten()[:n], (0, max(0, n - x.numel())))\n\n\n"
        "head.register_fake(lambda x, n: x.new_empty(n))",
        'lib.define("head.out(Tensor x, SymInt n, *, Tensor(a!) out) -> Tensor(a!)")\n'
        'torch.library.register_fake("mylib::head.out")(lambda x, n, *, out: out)',
    ),
    "bmul": (
        '@torch.library.custom_op("mylib::bmul", mutates_args=())\n'
        "def bmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n"
        "    dtype = torch.promote_types(a.dtype, b.dtype)\n"
        "    return a.to(dtype) * b.to(dtype)\n\n\n"
        "bmul.register_fake(lambda a, b: a.new_empty(torch.broadcast_shapes(a.shape, b.shape), "
        "dtype=torch.promote_types(a.dtype, b.dtype)))",
        'lib.define("bmul.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)")\n'
        'torch.library.register_fake("mylib::bmul.out")(lambda a, b, *, out: out)',
    ),
}
# Ops Thunder runs only once registered with it (thunder.torch.custom_op).
THUNDER_REGISTERED = ("head", "bmul")


class UnknownCustomOp(FuzzError, ValueError):
    """The program calls a harness custom op the exporter cannot define."""


@dataclasses.dataclass
class ProgramCode:
    helpers: str  # the case's other statements (imports of torch submodules, helpers)
    function: str  # `def program(...)`, or the Module class and its instance, as written
    params: list[str]  # the program's parameter names (forward's for a Module)
    body: str | None  # the function's body, dedented, where it can become a forward
    is_module: bool
    custom_ops: list[str]
    calls_function: str  # `def calls(): ...` as written
    uses_random: bool  # calls() draws from Python's `random`


def _rename_ops(text: str) -> str:
    return _FUZZ_OP.sub(lambda m: f"torch.ops.{NAMESPACE}.{m.group(1)}", text)


def _segment(lines: list[str], node: ast.stmt) -> str:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[start - 1 : node.end_lineno])


def _is_harness_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(
            a.name.split(".")[0] in ("fuzz", "fixes") or (a.name == "torch" and not a.asname)
            for a in node.names
        )
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in ("fuzz", "fixes")
    return False


def _simple_params(fn: ast.FunctionDef) -> list[str] | None:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        return None
    names = [p.arg for p in a.args]
    return names if "self" not in names else None


def program_code(case: Case) -> ProgramCode:
    source = case.source
    tree = ast.parse(source)
    lines = source.splitlines()
    helpers, function, calls_function = [], "", ""
    params, body, is_module = case.input_names(), None, False
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if _is_harness_import(node):
            continue
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in METADATA for t in node.targets
        ):
            continue
        text = _segment(lines, node)
        if isinstance(node, ast.FunctionDef) and node.name == "calls":
            calls_function = text
        elif isinstance(node, ast.FunctionDef) and node.name == "program":
            function = text
            simple = _simple_params(node)
            recursive = any(isinstance(n, ast.Name) and n.id == "program" for n in ast.walk(node))
            if simple is not None and not recursive and not node.decorator_list:
                params = simple
                first = node.body[0]
                if (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and len(node.body) > 1
                ):
                    first = node.body[1]  # a docstring stays with the case file
                body = textwrap.dedent("\n".join(lines[first.lineno - 1 : node.end_lineno]))
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "program" for t in node.targets
        ):
            function = text
            is_module = True
        else:
            helpers.append(text)
    ops = sorted(set(_FUZZ_OP.findall(source)))
    unknown = [op for op in ops if op not in CUSTOM_OPS]
    if unknown:
        raise UnknownCustomOp(
            f"{case.where}: calls custom ops the exporter cannot write: {unknown}"
        )
    return ProgramCode(
        helpers=_rename_ops("\n\n\n".join(helpers)),
        function=_rename_ops(function),
        params=params,
        body=_rename_ops(body) if body is not None else None,
        is_module=is_module,
        custom_ops=ops,
        calls_function=_rename_ops(calls_function),
        uses_random=bool(re.search(r"\brandom\.", calls_function)),
    )


def custom_ops_source(ops: list[str], planned: bool, thunder: bool) -> str:
    """The script's definitions of the custom ops the program calls; `planned` adds the
    `.out` overloads ExecuTorch's memory planning needs."""
    if not ops:
        return ""
    parts = []
    if any(op not in ("head", "bmul") for op in ops) or planned:
        parts.append(f'lib = torch.library.Library("{NAMESPACE}", "DEF")')
    for op in ops:
        functional, out = CUSTOM_OPS[op]
        parts.append(functional + ("\n" + out if planned else ""))
    registered = [op for op in ops if op in THUNDER_REGISTERED]
    if thunder and registered:
        parts.append(
            "# Thunder runs a torch.library custom op once it is registered with it\n"
            + "".join(f"_register_custom_op({op})\n" for op in registered).rstrip()
        )
    return "\n\n\n".join(parts)


def module_source(code: ProgramCode) -> tuple[str, str]:
    """(the source that defines the model, the expression of the model). The program's
    body becomes M.forward where it can; else forward calls the program."""
    if code.is_module:
        return code.function.replace("program =", "model =", 1), "model"
    if code.body is not None:
        forward = textwrap.indent(code.body, " " * 8)
        names = ", ".join(["self", *code.params])
        return (
            f"class M(torch.nn.Module):\n    def forward({names}):\n{forward}",
            "M()",
        )
    return (
        code.function
        + "\n\n\nclass M(torch.nn.Module):\n    def forward(self, *args):\n"
        + "        return program(*args)",
        "M()",
    )
