"""The prologue check: generated Python that replays a trace's decisions on each call.

When the prologue is built, the decision log becomes one extra prologue check,
`check_symbolic_decisions(leaves...)`: generated Python that recomputes each expression
from the new inputs and raises `SymbolicDecisionChanged` (a miss) if any decision would
go differently. Number inputs also get an exact type check. The prologue trace shows the
decisions above the call (`_check_symbol`'s printer), with the leaves named as in the
printed prologue.

When inputs of the call share storage, Thunder's alias handling takes more decisions
after this check was emitted: the check then also takes every symbolic input and calls
the `AliasWindow`'s function, filled in later by `Recorder.finish_alias_window`.
"""

from __future__ import annotations

import operator
from typing import Any

from fixes.thunder_symbolic_cache.expressions import (
    KINDS,
    Const,
    Leaf,
    leaves_of,
    node_key,
    render,
    same_value,
)

FIX_NAME = "thunder-symbolic-cache"  # also the name shown in the prologue (re-exported)

_LEAF_MARK = "\x00"  # leaf placeholders in descriptions, filled with the prologue's names


class SymbolicDecisionChanged(AssertionError):
    """Raised by the generated prologue check: a traced decision would go differently.

    An AssertionError like Thunder's other prologue checks; any exception is a cache miss.
    """


class AliasWindow:
    """The part of a prologue check that is only known after tracing.

    `insert_alias_updates` (run on the finished trace when some inputs of the call share
    storage) compares the sizes of those inputs to decide how to merge them. The check is
    emitted before that, so it takes every symbolic input (`order`, `leaves`) and calls
    `fn` (set by `Recorder.finish_alias_window`) after its own checks."""

    __slots__ = ("order", "index", "leaves", "templates", "fn")

    def __init__(self, order, leaves, templates):
        self.order = order
        self.index = {name: i for i, name in enumerate(order)}
        self.leaves = leaves
        self.templates = templates  # shared with the printed prologue
        self.fn = None


def compile_check(checks, typed, memo, alias_leaves=None):
    """Generates `check_symbolic_decisions(*leaves)`; returns the prologue constraint and,
    with `alias_leaves` (every symbolic input), the `AliasWindow` the check also runs."""
    leaf_proxies: dict[str, Any] = {}
    for node, _, _ in checks:
        found: dict[str, Leaf] = {}
        leaves_of(node, found, set())
        for name, leaf in found.items():
            leaf_proxies.setdefault(name, leaf.proxy)
    for name, p in typed.items():
        leaf_proxies.setdefault(name, p)
    for name, leaf in (alias_leaves or {}).items():
        leaf_proxies.setdefault(name, leaf.proxy)
    order = list(leaf_proxies)
    name = "check_symbolic_decisions"
    fn, templates = generate(checks, typed, memo, order, name)
    window = None
    if alias_leaves is not None:
        window = AliasWindow(order, dict(alias_leaves), templates)
        own = fn

        def check_symbolic_decisions(*leaves):
            own(*leaves)
            later = window.fn
            if later is not None:
                later(*leaves)

        check_symbolic_decisions.__source__ = own.__source__
        fn = check_symbolic_decisions

    def emit_into_prologue(*leaves):
        _check_symbol(fn, templates)(*leaves)

    return (emit_into_prologue, *(leaf_proxies[n] for n in order)), window


def generate(checks, typed, memo, order, fn_name):
    """The Python function `fn_name(L0, L1, ...)` (leaves in `order`) raising on a changed
    decision, and the readable form of each check."""
    index = {name: i for i, name in enumerate(order)}

    ns: dict[str, Any] = {
        "_Changed": SymbolicDecisionChanged,
        "same_value": same_value,
        "_index": operator.index,
    }
    names_of: dict[int, str] = {}  # id(constant or function) -> its name in `ns`

    def obj(v) -> str:
        if id(v) not in names_of:
            names_of[id(v)] = f"_k{len(names_of)}"
            ns[names_of[id(v)]] = v  # (also keeps v alive, so its id stays unique)
        return names_of[id(v)]

    body: list[str] = []
    temps: dict[tuple, str] = {}  # structural key -> local name (common subexpressions)

    def emit(node) -> str:
        if isinstance(node, Const):
            return obj(node.value)
        if isinstance(node, Leaf):
            return f"L{index[node.proxy.name]}"
        k = node_key(node, memo)
        if k not in temps:
            args = [emit(a) for a in node.args]
            temps[k] = f"t{len(temps)}"
            # A function may give an inline form of itself (`narrowings`: a conditional
            # expression), which saves a Python call in every prologue run.
            inline = getattr(node.fn, "__inline__", None)
            expr = inline.format(*args) if inline else f"{obj(node.fn)}({', '.join(args)})"
            body.append(f"    {temps[k]} = {expr}")
        return temps[k]

    def placeholder(leaf) -> str:
        return f"{_LEAF_MARK}{index[leaf.proxy.name]}{_LEAF_MARK}"

    templates = []
    for name, p in typed.items():
        t = p.python_type
        text = f"type({_LEAF_MARK}{index[name]}{_LEAF_MARK}) is {t.__name__}"
        templates.append(text)
        body.append(f"    if type(L{index[name]}) is not {obj(t)}:")
        body.append(f"        raise _Changed({_describe_error(text, order)!r})")
    for node, kind, observed in checks:
        fail, readable = KINDS[kind]
        text = readable.format(e=render(node, placeholder), r=observed)
        templates.append(text)
        body.append(f"    if {fail.format(v=emit(node), o=obj(observed))}:")
        body.append(f"        raise _Changed({_describe_error(text, order)!r})")

    body.append("    return None")
    src = (
        f"def {fn_name}({', '.join(f'L{i}' for i in range(len(order)))}):\n"
        + "\n".join(body)
        + "\n"
    )
    exec(compile(src, f"<{FIX_NAME}>", "exec"), ns)
    fn = ns[fn_name]
    fn.__source__ = src  # for debugging: the generated check
    return fn, templates


def _describe_error(text, order) -> str:
    parts = text.split(_LEAF_MARK)
    for i in range(1, len(parts), 2):
        parts[i] = order[int(parts[i])]
    return "symbolic-values cache entry does not apply: the trace required " + "".join(parts)


def _check_symbol(fn, templates):
    """A prologue symbol calling `fn`, printed with the decisions it replays above it."""
    # Thunder is imported here, not at module top: the package must import without Thunder.
    from thunder.core import codeutils
    from thunder.core.prims import OpTags
    from thunder.core.symbol import Symbol, default_python_printer

    name = fn.__name__

    def printer(bsym, out_printables, arg_printables, kwarg_printables):
        # Leaves are named as they are in the printed prologue (renames happen after binding).
        names = [codeutils.prettyprint(a) for a in arg_printables]
        lines = [f"# {FIX_NAME}: decisions taken while tracing, replayed on each call:"]
        for t in templates:
            parts = t.split(_LEAF_MARK)
            for i in range(1, len(parts), 2):
                parts[i] = names[int(parts[i])]
            lines.append("#   " + "".join(parts))
        lines.append(default_python_printer(bsym, out_printables, arg_printables, kwarg_printables))
        return lines

    def bind_postprocess(bsym):
        bsym._call_ctx = {name: fn}  # the generated prologue resolves `name` here

    return Symbol(
        name=name,
        id=f"{FIX_NAME}.{name}",
        meta=lambda *args: None,
        is_prim=True,
        tags=[OpTags.DONT_DCE],
        python_printer=printer,
        python_impl=fn,  # kept as is by transform_for_execution(pythonex)
        _bind_postprocess=bind_postprocess,
    )
