"""What a repro script is about, learned in-process before any script is written: the
calls (seeded as replay seeds them), what eager does with each, and, on EXIR, what the
program was exported for (the dynamic dims, the export example, which calls lie inside
the exported contract, the probes just outside it, the bounds data-dependent outputs
declare). Everything here runs the stock stack: no fix, no speedup; the lowering itself
(to_edge, to_executorch, the runtime) runs only in the scripts.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import warnings
from typing import Any

import torch
import torch.utils._pytree as pytree

from fuzz.case import Case
from fuzz.errors import error_text
from fuzz.repro_export.source import ProgramCode, program_code
from fuzz.tensors import copy_args, materialize


@dataclasses.dataclass
class Call:
    index: int
    args: tuple  # as replay materializes them (seed 0, on the device)
    eager_error: str | None = None  # eager raised: the call checks nothing
    outside: str | None = None  # EXIR: why it lies outside what was exported
    mutated: tuple[int, ...] = ()  # top-level inputs eager writes to

    @property
    def checkable(self) -> bool:
        return self.eager_error is None and self.outside is None


@dataclasses.dataclass
class Subject:
    case: Case
    lane: str
    device: str
    kinds: tuple[str, ...]  # () : the case names none, so every check is made
    code: ProgramCode
    calls: list[Call]
    outputs: str = "flat"  # eager's result: "tensor", "flat" (a tuple/list of tensors), "nested"
    float_dtypes: tuple[torch.dtype, ...] = ()  # of eager's outputs and written inputs
    # EXIR
    dims: dict[str, dict[int, tuple[int, int]]] = dataclasses.field(default_factory=dict)
    example: int = 0
    ep: Any = None
    export_error: str | None = None
    export_refused: bool = False
    non_core: list[str] = dataclasses.field(default_factory=list)
    probes: list[Any] = dataclasses.field(default_factory=list)  # contract.Probe
    output_bounds: list[int | None] = dataclasses.field(default_factory=list)

    @property
    def checkable(self) -> list[Call]:
        return [c for c in self.calls if c.checkable]

    @property
    def eager_raises(self) -> list[Call]:
        """Calls inside the contract that eager refuses: the stack must refuse them too."""
        return [c for c in self.calls if c.eager_error is not None and c.outside is None]

    @property
    def mutated(self) -> tuple[int, ...]:
        return tuple(sorted({i for c in self.calls for i in c.mutated}))

    @property
    def names(self) -> list[str] | None:
        """The program's parameter names, where each call binds them one to one."""
        params = self.code.params
        ok = all(p.isidentifier() for p in params) and all(
            len(c.args) == len(params) for c in self.calls
        )
        return params if ok and params else None


def _same(a: Any, b: Any) -> bool:
    try:
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
        return True
    except (AssertionError, TypeError, ValueError):
        return False


def _eager(program: Any, args: tuple) -> tuple[Any, str | None, tuple[int, ...]]:
    fresh = copy_args(args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = program(*fresh)
    except Exception as e:
        return None, error_text(e), ()
    written = tuple(
        i
        for i, (a, b) in enumerate(zip(args, fresh))
        if isinstance(a, torch.Tensor) and not _same(a.detach(), b.detach())
    )
    return out, None, written


def _output_form(out: Any) -> str:
    if isinstance(out, torch.Tensor):
        return "tensor"
    if isinstance(out, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in out):
        return "flat"
    return "nested"


def _float_dtypes(values: list[Any]) -> tuple[torch.dtype, ...]:
    dtypes = {v.dtype for v in values if isinstance(v, torch.Tensor) and v.is_floating_point()}
    return tuple(sorted(dtypes, key=str))


# The lanes whose scripts are ExecuTorch's pipeline (the XNNPACK lane's lowers with its
# partitioner: fuzz/repro_export/exir.py).
EXECUTORCH_LANES = ("exir", "xnnpack")


def analyse(case: Case, lane: str, device: str, kinds: tuple[str, ...]) -> Subject:
    subject = Subject(case, lane, device, kinds, program_code(case), [])
    args_list = materialize(case, 0, device)
    outs = []
    for i, args in enumerate(args_list):
        if lane in EXECUTORCH_LANES:
            from fuzz.backends.exir.inputs import independent

            args = independent(args)  # what the lane feeds: contiguous, each its own buffer
        out, error, written = _eager(case.program, args)
        subject.calls.append(Call(i, args, error, None, written))
        if error is None:
            outs.append(out)
    if outs:
        subject.outputs = _output_form(outs[0])
        leaves = [v for o in outs for v in pytree.tree_leaves(o)]
        leaves += [c.args[i] for c in subject.calls for i in c.mutated]
        subject.float_dtypes = _float_dtypes(leaves)
    if lane in EXECUTORCH_LANES:
        _analyse_exir(subject)
    return subject


# ---- EXIR ------------------------------------------------------------------------------

_NON_CORE = re.compile(r"Operator (?:torch\._ops\.)?(\w+)\.(\w+)\.(\w+) is not in Core ATen")


def non_core_ops(ep: Any, tries: int = 6) -> list[str]:
    """The operators outside the Core ATen opset that `to_edge` must be told to allow
    (its verifier names one per try, as the lane learns them)."""
    from executorch.exir import EdgeCompileConfig, to_edge
    from torch._export.verifier import SpecViolationError

    allowed: list[str] = []
    for _ in range(tries):
        ops = [_op(name) for name in allowed]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                to_edge(
                    copy.deepcopy(ep),
                    compile_config=EdgeCompileConfig(_core_aten_ops_exception_list=ops),
                )
            return allowed
        except SpecViolationError as e:
            m = _NON_CORE.search(str(e))
            if not m or ".".join(m.groups()) in allowed:
                return allowed
            allowed.append(".".join(m.groups()))
        except Exception:
            return allowed  # to_edge fails otherwise: the script shows it
    return allowed


def _op(name: str) -> Any:
    namespace, op, overload = name.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), op), overload)


def _analyse_exir(s: Subject) -> None:
    from fuzz.backends.exir import contract
    from fuzz.backends.exir.inputs import derive_dims, pick_example
    from fuzz.backends.exir.oracles import plan
    from fuzz.backends.exir.pipeline import export_program, is_export_refusal

    args_list = [c.args for c in s.calls]
    by_position = derive_dims(s.case, args_list)
    names = s.case.input_names()
    s.dims = {names[p]: d for p, d in by_position.items() if p < len(names)}
    s.example = pick_example(args_list, by_position)
    try:
        s.ep = export_program(s.case.program, args_list[s.example], by_position)
    except Exception as e:
        s.export_error, s.export_refused = error_text(e), is_export_refusal(e)
        return
    contract.freeze(s.ep)
    for c in s.calls:
        c.outside = contract.outside_contract(s.ep, c.args)
    s.non_core = non_core_ops(s.ep)
    s.probes = contract.contract_probes(s.ep, args_list[s.example])
    ranges = plan.declared_ranges(s.ep)
    user_outputs = [
        spec.arg.name
        for spec in s.ep.graph_signature.output_specs
        if spec.kind.name == "USER_OUTPUT"
    ]
    vals = {
        a.name: a.meta.get("val")
        for a in pytree.tree_leaves(s.ep.graph.output_node().args)
        if isinstance(a, torch.fx.Node)
    }
    for name in user_outputs:
        val = vals.get(name)
        dependent = isinstance(val, torch.Tensor) and any(
            isinstance(d, torch.SymInt)
            and any(str(sym).startswith("u") for sym in d.node.expr.free_symbols)
            for d in val.shape
        )
        s.output_bounds.append(plan.numel_bound(val, ranges) if dependent else None)


# ---- screening the cheap stages in-process ---------------------------------------------


def may_show(s: Subject, stage: str) -> bool:
    """Whether the EXIR `stage` (export, decompositions, to_edge) may show a problem: its
    module run here, on the stock stack, on every call the scripts would check. A screen
    only: a stage it clears is skipped, one it flags is tried as a script (which decides).
    Each screen exports afresh: copies of a program share its ShapeEnv, and what one
    lowering teaches it must not reach the next."""
    from fuzz.backends.exir.pipeline import export_program

    calls = [c for c in s.calls if c.outside is None]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ep = export_program(s.case.program, s.calls[s.example].args, _by_position(s))
            if stage == "export":
                module = ep.module()
            elif stage == "decompositions":
                module = ep.run_decompositions().module()
            else:
                from executorch.exir import EdgeCompileConfig, to_edge

                config = EdgeCompileConfig(
                    _core_aten_ops_exception_list=[_op(n) for n in s.non_core]
                )
                module = to_edge(ep, compile_config=config).exported_program().module()
    except Exception:
        return True  # the stage itself fails
    for c in calls:
        out, error, _ = _eager(module, c.args)
        if (error is None) != (c.eager_error is None):
            return True
        if error is None:
            expected, _, _ = _eager(s.case.program, c.args)
            if not _close(out, expected, s.float_dtypes):
                return True
            if c.mutated and not _writes_alike(module, s.case.program, c.args):
                return True
    return False


def _by_position(s: Subject) -> dict[int, dict[int, tuple[int, int]]]:
    names = s.case.input_names()
    return {names.index(n): d for n, d in s.dims.items() if n in names}


def _close(actual: Any, expected: Any, dtypes: tuple[torch.dtype, ...]) -> bool:
    from fuzz.oracles.results import TOLERANCES

    known = [TOLERANCES[d] for d in dtypes if d in TOLERANCES]
    rtol = max((r for r, _ in known), default=0.0)
    atol = max((a for _, a in known), default=0.0)
    try:
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        return True
    except (AssertionError, TypeError, ValueError):
        return False


def _writes_alike(module: Any, program: Any, args: tuple) -> bool:
    mine, theirs = copy_args(args), copy_args(args)
    try:
        module(*mine)
        program(*theirs)
    except Exception:
        return False
    return _same(list(mine), list(theirs))
