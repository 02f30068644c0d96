"""Template text of two EXIR checks (see exir_template.py for the pipeline they run on):
`CONTRACT`, inputs just outside what was exported must be rejected by the runtime
(exir.unchecked-contract, as fuzz/backends/exir/contract.py probes it), and `BOUNDS`, a
data-dependent output must be planned within the bound the program declares
(exir.bound-loss, as fuzz/backends/exir/oracles/plan.py checks it, for the outputs whose size is
an unbacked symbol and the op's they feed).
"""

from __future__ import annotations

# exir.unchecked-contract
CONTRACT = '''

# ---- the check ---------------------------------------------------------------------

GUARD_SPAN = 8  # in-range sizes tried for a guard of export's that no range can express


def resized(t, shape):
    out = torch.zeros(shape, dtype=t.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(t.shape, shape))
    out[common] = t[common]
    return out


def probes(ep, example):
    """(what, args) for inputs just outside what was exported: each symbolic size at its
    max + 1, and the first in-range size that fails one of export's guards."""
    flat, spec = pytree.tree_flatten(list(example))
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    shapes, sizes = {}, {}
    for i, (name, arg) in enumerate(zip(ep.graph_signature.user_inputs, flat)):
        val = vals.get(name)
        if isinstance(val, torch.Tensor) and isinstance(arg, torch.Tensor):
            shapes[i] = [s.node.expr if isinstance(s, torch.SymInt) else s for s in val.shape]
            for e, v in zip(shapes[i], arg.shape):
                if not isinstance(e, int) and e.is_Symbol:
                    sizes.setdefault(e, v)

    def make(symbol, value):
        new = list(flat)
        for i, exprs in shapes.items():
            at = sizes | {symbol: value}
            shape = [e if isinstance(e, int) else int(e.subs(at)) for e in exprs]
            if shape != list(flat[i].shape):
                new[i] = resized(flat[i], shape)
        return tuple(pytree.tree_unflatten(new, spec))

    out = []
    for symbol in sorted(sizes, key=str):
        r = ep.range_constraints.get(symbol)
        if r is None:
            continue
        lo, hi = int(r.lower), int(r.upper) if r.upper.is_finite else None
        if hi is not None:
            out.append((f"{symbol} = {hi + 1}, its max being {hi}", make(symbol, hi + 1)))
        for v in range(lo, min(hi if hi is not None else 1 << 62, lo + GUARD_SPAN - 1) + 1):
            args = make(symbol, v)
            why = accepted_by_export(ep, args) if v != sizes[symbol] else None
            if why is not None and why.startswith("fails export's guard"):
                what = f"{symbol} = {v}, in [{lo}, {r.upper}] but export rejects it: {why}"
                out.append((what, args))
                break
    if not sizes and shapes:  # all static: one more row than exported
        i = next(i for i, exprs in shapes.items() if exprs)
        shape = [int(e) for e in shapes[i]]
        shape[0] += 1
        new = list(flat)
        new[i] = resized(flat[i], shape)
        args = tuple(pytree.tree_unflatten(new, spec))
        out.append((f"input {i} dim 0 = {shape[0]}, exported static {shape[0] - 1}", args))
    return out


def check():
    """The runtime must reject inputs outside what was exported, as the exported program
    does, instead of running them."""
    all_calls = the_calls()
    built = lower(all_calls[EXAMPLE_CALL])
    if isinstance(built[0], str):
        print(f"note: {built[0]} raised {error_text(built[1])}: nothing to check")
        return []
    ep, edge, et = built
    if missing := ops_without_kernels(et):
        return unrunnable(missing)
    inside = [args for args in all_calls if accepted_by_export(ep, args) is None]
    if not inside:
        print("note: no call is inside what was exported: nothing to check")
        return []
    loaded, problems = Loaded(et), []
    for what, args in probes(ep, inside[0]):
        shapes = [tuple(t.shape) for t in leaves(args) if isinstance(t, torch.Tensor)]
        try:
            loaded.method.execute(loaded.inputs(args))
        except Exception:
            print(f"rejected as it should be: {what}")
            continue
        problems.append(f"the runtime accepted inputs of shapes {shapes} ({what})")
    return problems
'''

# exir.bound-loss
BOUNDS = '''

# ---- the check ---------------------------------------------------------------------


def finite_int(value):
    """`value` as an int, or None when it is no finite number (oo, int_oo, a symbol)."""
    try:
        return int(value) if value.is_number and value.is_finite else None
    except (TypeError, ValueError, AttributeError):
        return None


def declared_ranges(env, ep):
    """Each size symbol's range: the shape env's, narrowed by ep.range_constraints and by
    the program's runtime asserts `u <= bound` (a fake kernel's torch._check), the bound a
    number or an expression of sizes (`u0 <= s4*(s40 - 1)`: its upper bound as written)."""
    from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

    ranges = dict(env.var_to_range) | dict(ep.range_constraints)
    for asserts in env.deferred_runtime_asserts.values():
        for e in (a.expr for a in asserts):
            if getattr(e, "rel_op", None) in ("<=", "<") and e.lhs in ranges:
                upper = finite_int(bound_sympy(e.rhs, ranges).upper)
                if upper is not None:
                    upper -= e.rel_op == "<"
                    r = ranges[e.lhs]
                    ranges[e.lhs] = ValueRanges(r.lower, min(r.upper, upper))
    return ranges


def declared_bound(ep, val):
    """Upper bound of a (fake) tensor's element count under the ranges export declared."""
    from torch.utils._sympy.value_ranges import bound_sympy

    total = 1
    for s in val.shape:
        if isinstance(s, torch.SymInt):
            ranges = declared_ranges(s.node.shape_env, ep)
            upper = finite_int(bound_sympy(s.node.expr, ranges).upper)
            if upper is None:
                return None
            total *= upper
        else:
            total *= int(s)
    return total


def schema_name(target):
    schema = op_schema(target)
    return schema.name if schema is not None else None


def check():
    """Each data-dependent output (its size a fresh symbol of the op's fake kernel) must be
    planned with at most the elements the program declares for it."""
    all_calls = the_calls()
    built = lower(all_calls[EXAMPLE_CALL])
    if isinstance(built[0], str):
        print(f"note: {built[0]} raised {error_text(built[1])}: nothing to check")
        return []
    ep, edge, et = built
    declared = {}  # operator -> declared bounds of its outputs, in graph order
    for gm in graph_modules(ep):
        for node in gm.graph.nodes:
            val = node.meta.get("val")
            if node.op != "call_function" or not isinstance(val, torch.Tensor):
                continue
            sizes = [str(s.node.expr) for s in val.shape if isinstance(s, torch.SymInt)]
            if any(size.startswith("u") for size in sizes):  # an unbacked (data-dependent) size
                declared.setdefault(schema_name(node.target), []).append(declared_bound(ep, val))
    problems = []
    for gm in graph_modules(et.exported_program()):
        for node in gm.graph.nodes:
            bounds = declared.get(schema_name(node.target)) if node.op == "call_function" else None
            spec = node.meta.get("spec")
            if not bounds or not hasattr(spec, "shape"):
                continue
            needed, planned = bounds.pop(0), 1
            for s in spec.shape:
                planned *= s
            print(f"{schema_name(node.target)}: planned {planned} elements, declared {needed}")
            if needed is not None and planned > needed:
                problems.append(
                    f"{schema_name(node.target)} is planned {planned} elements "
                    f"(shape {list(spec.shape)}); the program declares at most {needed}"
                )
    return problems
'''
