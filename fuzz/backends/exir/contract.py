"""The exported contract of an EXIR program: which calls the lane may compare, and the
probes just outside it that the runtime must reject.

The contract of an exported program is its user-input placeholders' meta['val']
(dtype, rank, static sizes, symbolic sizes), `ep.range_constraints` for the symbols, the
constants export specialized non-tensor inputs to, and the guards export kept beside the
ranges (`ep._guards_code`, e.g. `x.size()[0] != 3` from an `if x.shape == (3,)` branch
under Dim.AUTO: a condition no range can express, which `ep.module()` checks on every
call). Only calls inside it are run (`outside_contract`); probes just outside it must be
rejected (`contract_probes`, judged by the lane as exir.unchecked-contract). The lane
also keeps out calls whose inputs overlap in memory when the program mutates an input
(`aliased_mutation`): the runtime takes every input as its own buffer.

Number inputs: torch.export specializes a Python `int`/`float` argument to the value of
the example. It stays a user input (a ConstantArgument in the signature; `ep.module()`
guards it: `Guard failed: n == 3`), so a call with another value is outside the
contract ("input n=4, exported as the constant 3"), never compared.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import sympy
import torch
import torch.utils._pytree as pytree
from torch.export.graph_signature import InputKind, OutputKind

from fuzz.backends.exir.graph import dim_expr, unbounded
from fuzz.facts import announce, size_tags
from fuzz.observe import CallRecord
from fuzz.oracles.results import value_mismatch


def _user_input_specs(ep: torch.export.ExportedProgram) -> list[Any]:
    return [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]


# A placeholder's sizes are SymInts of the ShapeEnv that export made, and the lowering
# shares that env: a pass that guards on a size (an int() of a SymInt) adds a
# replacement s77 -> 3 to it, and the exported program's own placeholders then read
# static. So the contract is read once, right after export (`freeze`), and kept.
_FROZEN: weakref.WeakKeyDictionary[Any, dict[str, tuple[torch.dtype, tuple[sympy.Expr, ...]]]] = (
    weakref.WeakKeyDictionary()
)


def _live_input_dims(ep: torch.export.ExportedProgram) -> dict[str, Any]:
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    return {
        name: (val.dtype, tuple(dim_expr(d) for d in val.shape))
        for name, val in vals.items()
        if isinstance(val, torch.Tensor)
    }


# Symbols that size a value of the exported program that is empty at the export example
# (`x[2:]` of an example of 2 rows: s77 - 2 is 0 at the example, not always). Read at
# `freeze`, for the `specialized` fact: run_decompositions then guards Eq(s77 - 2, 0)
# where export suppressed it, and specializes the dim (corpus/torch_decompositions_
# specialize_empty_at_example.py).
_EMPTY_AT_EXAMPLE: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def _sizes_empty_at_example(ep: torch.export.ExportedProgram) -> frozenset[str]:
    out: set[str] = set()
    for node in ep.graph.nodes:
        for val in pytree.tree_leaves(node.meta.get("val")):
            for size in val.shape if isinstance(val, torch.Tensor) else ():
                if isinstance(size, torch.SymInt) and size.node.hint == 0:
                    out.update(str(s) for s in size.node.expr.free_symbols)
    return frozenset(out)


def freeze(ep: torch.export.ExportedProgram) -> None:
    """Keep the contract `ep` declares now (call it right after export): later guards in
    its ShapeEnv no longer change what the contract check and the probes read."""
    _FROZEN[ep] = _live_input_dims(ep)
    _EMPTY_AT_EXAMPLE[ep] = _sizes_empty_at_example(ep)


def empty_at_example(ep: torch.export.ExportedProgram) -> frozenset[str]:
    """The symbols ("s77") of sizes that are 0 at the export example but not constant,
    as read at `freeze` (empty when it was not called)."""
    return _EMPTY_AT_EXAMPLE.get(ep, frozenset())


def _input_dims(ep: torch.export.ExportedProgram) -> dict[str, Any]:
    """Tensor placeholders: name -> (dtype, dims as sympy expressions), as frozen."""
    if ep not in _FROZEN:
        freeze(ep)
    return _FROZEN[ep]


def specialized(ep: torch.export.ExportedProgram) -> list[str]:
    """The symbols of the frozen contract that the ShapeEnv now holds as constants,
    "s77=3": something after export specialized a dim the program declares dynamic, and
    the lowered program plans and accepts that size only."""
    live = _live_input_dims(ep)
    out = set()
    for name, (_, dims) in _input_dims(ep).items():
        for frozen, now in zip(dims, live.get(name, (None, ()))[1]):
            if isinstance(frozen, sympy.Symbol) and now.is_Integer:
                out.add(f"{frozen}={int(now)}")
    return sorted(out, key=lambda s: (len(s), s))


def shape_env(ep: torch.export.ExportedProgram) -> Any:
    """The ShapeEnv of `ep`'s fake values (None for a program without symbolic sizes).
    Copies of an ExportedProgram share it, and guards added while lowering land in it."""
    from torch._guards import detect_fake_mode

    values = [n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"]
    mode = detect_fake_mode([v for v in values if isinstance(v, torch.Tensor)])
    return getattr(mode, "shape_env", None)


def specialized_by(ep: torch.export.ExportedProgram, symbols: Sequence[str]) -> dict[str, str]:
    """For specialized dims ("s77=3", from `specialized`), the frame of the stacks under
    test whose guard replaced the symbol, as "<package path>:<function>"
    ("executorch/exir/tensor.py:__lt__"): the ShapeEnv keeps it
    (`replacements_slocs`). Dims it holds no frame for are left out."""
    env = shape_env(ep)
    if env is None:
        return {}
    slocs = {str(k): v for k, v in env.replacements_slocs.items()}
    out = {}
    for sym in symbols:
        sloc = slocs.get(sym.partition("=")[0])
        frame = getattr(sloc, "framework_loc", None)
        filename = getattr(frame, "filename", None)
        if filename:
            path = filename.replace("\\", "/").split("site-packages/")[-1]
            out[sym] = f"{path}:{frame.name}"
    return out


def note_specialized(
    ep: torch.export.ExportedProgram,
    stage: str,
    seen: dict[str, str],
    seen_by: dict[str, str],
) -> None:
    """Record the dims of `ep`'s contract specialized by now (`specialized`) in `seen`,
    each with the first stage it was seen after, and the frame that did it
    (`specialized_by`) in `seen_by`: the details "specialized" and "specialized_by" of
    every lane that lowers an exported program."""
    symbols = specialized(ep)
    for sym in symbols:
        seen.setdefault(sym, stage)
    for sym, where in specialized_by(ep, symbols).items():
        seen_by.setdefault(sym, where)


def announce_probe(ops: Sequence[str], probe: Any) -> None:
    """Say that a contract probe is about to run (fuzz.facts.announce): a runtime that
    accepts an input outside the contract may die running it (a reduction kernel aborting
    on the empty value a lower bound minus one makes), and the parent that sees the death
    then knows it came from an input the runtime should have rejected (fact `during`)."""
    during = f"contract[{probe.kind}]"
    announce({"ops": list(ops), "sizes": size_tags(probe.args), "during": during})


_GUARDS: weakref.WeakKeyDictionary[Any, Callable[..., Any] | None] = weakref.WeakKeyDictionary()


def export_guards(ep: torch.export.ExportedProgram) -> Callable[..., Any] | None:
    """The function `ep.module()` runs on its flat user inputs before the graph: the
    range and specialization checks plus the guards of `ep._guards_code`; None when
    export kept no guards. Built once per program."""
    if ep in _GUARDS:
        return _GUARDS[ep]
    fn = getattr(ep.module(), "_guards_fn", None) if getattr(ep, "_guards_code", None) else None
    _GUARDS[ep] = fn
    return fn


def failed_guard(ep: torch.export.ExportedProgram, args: Sequence[Any]) -> str | None:
    """The first export guard `args` fail ("x0.size()[0] != 3"), or None."""
    fn = export_guards(ep)
    if fn is None:
        return None
    try:
        fn(*pytree.tree_leaves((tuple(args), {})))
    except AssertionError as e:
        return str(e).removeprefix("Guard failed: ")
    return None


# Why a call is outside the contract, as a kind the report sums (counters
# "call-outside-contract:<kind>", report.json "checked" outside_contract_by): which of
# export's specializations leaves the most calls unchecked. First match wins.
_REASON_KINDS = (
    ("fails the export guard", "guard"),
    ("share memory", "aliased-mutation"),
    ("exported as the constant", "number"),
    ("exported as a tensor", "input-type"),
    (" rank ", "input-type"),
    ("input leaves", "input-count"),
    ("exported static", "static-dim"),
    (" outside ", "dim-range"),
    (" elsewhere", "dim-relation"),
    (", but ", "dim-relation"),
)


def reason_kind(why: str) -> str:
    """The kind of an `outside_contract` or `aliased_mutation` reason ("number", ...)."""
    return next((kind for text, kind in _REASON_KINDS if text in why), "other")


def outside_contract(ep: torch.export.ExportedProgram, args: Sequence[Any]) -> str | None:
    """Why `args` lie outside the exported program's contract, or None when inside."""
    why = _outside_signature(ep, args)
    if why is None and (guard := failed_guard(ep, args)) is not None:
        why = f"fails the export guard {guard}"
    return why


def _outside_signature(ep: torch.export.ExportedProgram, args: Sequence[Any]) -> str | None:
    """outside_contract without the guards: placeholders, constants and range_constraints."""
    flat = pytree.tree_leaves((tuple(args), {}))
    specs = _user_input_specs(ep)
    if len(flat) != len(specs):
        return f"{len(flat)} input leaves, the program takes {len(specs)}"
    dims_of = _input_dims(ep)
    ranges = ep.range_constraints
    binding: dict[sympy.Symbol, int] = {}
    compound: list[tuple[str, sympy.Expr, int]] = []
    for spec, value in zip(specs, flat):
        name = spec.arg.name
        if hasattr(spec.arg, "value"):  # ConstantArgument: export specialized this input
            # Another value, or the same value as another type (3.0 for an exported 3: the
            # runtime takes the exported type only), is outside what was exported.
            if value != spec.arg.value or type(value) is not type(spec.arg.value):
                return f"input {name}={value!r}, exported as the constant {spec.arg.value!r}"
            continue
        if name not in dims_of:
            continue  # symbolic int inputs: nothing to check here
        dtype, exprs = dims_of[name]
        if not isinstance(value, torch.Tensor):
            return f"input {name} is {type(value).__name__}, exported as a tensor"
        if value.dtype != dtype or value.dim() != len(exprs):
            return (
                f"input {name}: {value.dtype} rank {value.dim()}, "
                f"exported {dtype} rank {len(exprs)}"
            )
        for d, (e, v) in enumerate(zip(exprs, value.shape)):
            if e.is_Integer:
                if int(e) != v:
                    return f"input {name} dim {d} = {v}, exported static {int(e)}"
            elif isinstance(e, sympy.Symbol):
                if binding.setdefault(e, v) != v:
                    return f"input {name} dim {d} = {v}, but {e} = {binding[e]} elsewhere"
                vr = ranges.get(e)
                if vr is not None and not (
                    vr.lower <= v and (unbounded(vr.upper) or v <= vr.upper)
                ):
                    return f"input {name} dim {d} = {v} outside {e} in [{vr.lower}, {vr.upper}]"
            else:
                compound.append((f"{name} dim {d}", e, v))
    for where, e, v in compound:
        got = e.subs(binding)
        if got.is_Integer and int(got) != v:
            return f"input {where} = {v}, but {e} = {got}"
    return None


def _extent(t: torch.Tensor) -> tuple[int, int, int]:
    """(storage, first byte, one past the last byte) that `t` can touch."""
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride())) if t.numel() else 0
    start = t.storage_offset() * t.element_size()
    return t.untyped_storage().data_ptr(), start, start + span * t.element_size()


def overlapping_inputs(args: Sequence[Any]) -> list[tuple[int, int]]:
    """Pairs (i, j) of flat tensor inputs whose bytes may overlap (same tensor twice,
    overlapping views of one base)."""
    flat = pytree.tree_leaves((tuple(args), {}))
    ext = {i: _extent(t) for i, t in enumerate(flat) if isinstance(t, torch.Tensor) and t.numel()}
    return [
        (i, j)
        for i in ext
        for j in ext
        if i < j and ext[i][0] == ext[j][0] and ext[i][1] < ext[j][2] and ext[j][1] < ext[i][2]
    ]


def aliased_mutation(
    et_program: torch.export.ExportedProgram, args: Sequence[Any], expected: CallRecord
) -> str | None:
    """Why a call is outside what an exported program can express: two of its inputs
    overlap and the program mutates an input (its signature returns a mutation, or eager
    changed an input). Export assumes distinct inputs (pytorch/pytorch#144683) and the
    runtime takes each input as its own buffer, so eager's writes through one input into
    another have no counterpart; without a mutation aliasing is invisible and the call is
    kept."""
    pairs = overlapping_inputs(args)
    if not pairs:
        return None
    flat = pytree.tree_leaves((tuple(args), {}))
    mutates = any(
        o.kind == OutputKind.USER_INPUT_MUTATION for o in et_program.graph_signature.output_specs
    )
    mutates = mutates or any(
        isinstance(b, torch.Tensor) and value_mismatch(b.detach().cpu(), a) is not None
        for b, a in zip(flat, expected.inputs_after)
    )
    if not mutates:
        return None
    i, j = pairs[0]
    return f"inputs {i} and {j} share memory and the program mutates an input"


@dataclasses.dataclass
class Probe:
    name: str  # e.g. "s77=17 (max 16 + 1)"
    kind: str  # "upper" | "lower" | "static" | "guard"
    args: tuple


GUARD_PROBE_SPAN = 64  # values of a symbol's range tried for a guard probe


def _resized(t: torch.Tensor, shape: list[int]) -> torch.Tensor:
    out = torch.zeros(shape, dtype=t.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(t.shape, shape))
    out[common] = t.detach().cpu()[common]
    return out


def contract_probes(ep: torch.export.ExportedProgram, example: Sequence[Any]) -> list[Probe]:
    """Inputs just outside the contract, made from an in-contract example.

    One "upper" probe per symbol with a finite max (max+1 on every input dim bound to
    it, compound dims re-evaluated), one "lower" probe per symbol with min-1 >= 0, one
    "guard" probe per symbol with a value inside its range that fails an export guard
    (the first such value, of the first GUARD_PROBE_SPAN of the range), and, when no
    input dim is symbolic, one "static" probe (first sized dim + 1).
    """
    flat, spec = pytree.tree_flatten((tuple(example), {}))
    specs = _user_input_specs(ep)
    dims_of = _input_dims(ep)
    shapes: dict[int, list[sympy.Expr]] = {}
    binding: dict[sympy.Symbol, int] = {}
    for i, (s, value) in enumerate(zip(specs, flat)):
        if s.arg.name in dims_of and isinstance(value, torch.Tensor):
            shapes[i] = list(dims_of[s.arg.name][1])
            for e, v in zip(shapes[i], value.shape):
                if isinstance(e, sympy.Symbol):
                    binding.setdefault(e, v)

    def size(e: sympy.Expr, values: dict[sympy.Symbol, int]) -> int:
        """`e` at `values`: static sizes and plain symbols without sympy's subs."""
        if e.is_Integer:
            return int(e)
        return values[e] if e in values else int(e.subs(values))

    def make(assign: dict[sympy.Symbol, int]) -> tuple:
        new, values = list(flat), binding | assign
        for i, exprs in shapes.items():
            shape = [size(e, values) for e in exprs]
            if shape != list(flat[i].shape):
                new[i] = _resized(flat[i], shape)
        return pytree.tree_unflatten(new, spec)[0]

    probes = []
    for sym in sorted(binding, key=str):
        vr = ep.range_constraints.get(sym)
        if vr is None:
            continue
        if not unbounded(vr.upper):
            probes.append(
                Probe(
                    f"{sym}={int(vr.upper) + 1} (max {int(vr.upper)} + 1)",
                    "upper",
                    make({sym: int(vr.upper) + 1}),
                )
            )
        if int(vr.lower) - 1 >= 0:
            probes.append(
                Probe(
                    f"{sym}={int(vr.lower) - 1} (min {int(vr.lower)} - 1)",
                    "lower",
                    make({sym: int(vr.lower) - 1}),
                )
            )
        if export_guards(ep) is not None:
            top = int(vr.lower) + GUARD_PROBE_SPAN - 1
            top = top if unbounded(vr.upper) else min(top, int(vr.upper))
            for v in range(int(vr.lower), top + 1):
                if v == binding[sym]:
                    continue
                args = make({sym: v})
                if (
                    _outside_signature(ep, args) is None
                    and (guard := failed_guard(ep, args)) is not None
                ):
                    probes.append(
                        Probe(
                            f"{sym}={v} (in [{int(vr.lower)}, {vr.upper}], fails the guard "
                            f"{guard})",
                            "guard",
                            args,
                        )
                    )
                    break
    if not binding:
        for i, exprs in shapes.items():
            if exprs:
                shape = [int(e) for e in exprs]
                shape[0] += 1
                new = list(flat)
                new[i] = _resized(flat[i], shape)
                probes.append(
                    Probe(
                        f"input {specs[i].arg.name} dim 0 = {shape[0]} (static {shape[0] - 1})",
                        "static",
                        pytree.tree_unflatten(new, spec)[0],
                    )
                )
                break
    return probes
