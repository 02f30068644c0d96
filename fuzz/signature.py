"""Divergence signatures: what makes two findings "the same bug" for deduplication.

A signature is the tuple

    (kind, lane, stage kind, normalized program)

* `kind` is the public dotted kind (fuzz.divergence.KINDS), `lane` its prefix.
* The *stage kind* is the stage with its call index dropped and its probe kept
  (fuzz.divergence.stage_kind): "call[3]" -> "call", "contract[upper]" stays. Shrinking
  moves the failing call around, and the same cache bug shows at call[1] in one program
  and call[4] in another; an unchecked upper bound is another bug than an unchecked guard.
* The *normalized program* is the case's program code with everything that does not
  change what it computes stripped (see `normalize_source`): docstrings, comments,
  imports, `calls()` (the inputs are not part of the program: the same program found
  with other sizes is the same bug), the metadata assignments (fuzz.case.METADATA:
  LANES, DEVICES, DIMS, EXPECT, UPSTREAM, MATCHES, FOUND, META), single-element tuple
  returns unwrapped (`return (v,)` -> `return v`), single-use temporaries inlined into
  the statement right after them (`v2 = x0 + x1; return v2` -> `return x0 + x1`), and
  every local name renamed canonically by order of first appearance (parameters a0, a1,
  ...; other locals t0, t1, ...). So the generator's `def program(x0, x1): v2 = x0 + x1;
  return (v2,)` and a hand-written `def program(a, b): return a + b` normalize alike.

`digest` is a short stable hash of the signature, used in file names and reports.

Case files record the divergences they were filed for in an optional `FOUND` tuple of
"kind@stage-kind" strings (generated cases always have it); `signatures_of_source`
rebuilds a case's signatures from FOUND and its EXPECT kinds without running it.
"""

from __future__ import annotations

import ast
import hashlib
from typing import NamedTuple

from fuzz.case import METADATA, case_metadata
from fuzz.divergence import lane_of, stage_kind


class Signature(NamedTuple):
    kind: str
    lane: str
    stage: str  # the stage kind (call index dropped, probe kept)
    program: str  # normalized program source

    @property
    def digest(self) -> str:
        text = "\x00".join(self)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def label(self) -> str:
        return f"{self.kind}@{self.stage}"


def signature(kind: str, stage: str, source: str) -> Signature:
    return Signature(kind, lane_of(kind), stage_kind(stage), normalize_source(source))


def parse_found(entry: str) -> tuple[str, str]:
    kind, _, stage = entry.partition("@")
    return kind.strip(), stage_kind(stage.strip() or "?")


# -- normalization -------------------------------------------------------------------


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _strip_docstrings(body: list[ast.stmt]) -> list[ast.stmt]:
    return [n for n in body if not _is_docstring(n)] or [ast.Pass()]


def _assigned_names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _keep_module_stmt(node: ast.stmt) -> bool:
    if _is_docstring(node) or isinstance(node, (ast.Import, ast.ImportFrom)):
        return False
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "calls":
        return False
    names = _assigned_names(node)
    if names and names <= METADATA.keys():
        return False
    return True


def _load_counts(nodes: list[ast.AST]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                counts[n.id] = counts.get(n.id, 0) + 1
    return counts


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr):
        self.name, self.value, self.done = name, value, False

    def visit_Name(self, node: ast.Name):
        if node.id == self.name and isinstance(node.ctx, ast.Load) and not self.done:
            self.done = True
            return self.value
        return node


def _inline_temporaries(body: list[ast.stmt]) -> list[ast.stmt]:
    """Inline `t = expr` into the next statement when `t` is used exactly once, there,
    and nowhere else (straight-line code only: nested blocks are left as they are)."""
    body = list(body)
    changed = True
    while changed:
        changed = False
        for i in range(len(body) - 1):
            node, nxt = body[i], body[i + 1]
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                continue
            name = node.targets[0].id
            rest = body[i + 1 :]
            if _load_counts(rest).get(name, 0) != 1 or _load_counts([nxt]).get(name, 0) != 1:
                continue
            if any(name in _assigned_names(n) for n in rest):
                continue
            if isinstance(nxt, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                continue  # would move the expression into a block
            sub = _Substitute(name, node.value)
            body[i + 1] = sub.visit(nxt)
            del body[i]
            changed = True
            break
    return body


def _unwrap_single_returns(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Return)
            and isinstance(node.value, (ast.Tuple, ast.List))
            and len(node.value.elts) == 1
            and not isinstance(node.value.elts[0], ast.Starred)
        ):
            node.value = node.value.elts[0]


class _Rename(ast.NodeTransformer):
    """Canonical local names per function: parameters a0.., other locals t0..

    Names a function neither binds nor receives (torch, helpers) are left alone; a
    nested function sees its enclosing function's renamed names."""

    def __init__(self):
        self.scopes: list[tuple[dict[str, str], set[str], list[int]]] = []

    def _new(self, name: str, prefix: str) -> str:
        mapping, _, counters = self.scopes[-1]
        i = 0 if prefix == "a" else 1
        mapping[name] = f"{prefix}{counters[i]}"
        counters[i] += 1
        return mapping[name]

    def visit_FunctionDef(self, node):
        stored = {
            n.id
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
        }
        outer = self.scopes[-1][2] if self.scopes else None
        # Nested functions continue the enclosing counters, so names never collide.
        self.scopes.append(({}, stored, outer if outer is not None else [0, 0]))
        args = node.args
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        for a in (
            args.posonlyargs
            + args.args
            + args.kwonlyargs
            + [x for x in (args.vararg, args.kwarg) if x]
        ):
            a.arg = self._new(a.arg, "a")
            a.annotation = None
        node.returns = None
        node.body = [self.visit(n) for n in node.body]
        self.scopes.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node):
        for mapping, _, _ in reversed(self.scopes):
            if node.id in mapping:
                node.id = mapping[node.id]
                return node
        if self.scopes and node.id in self.scopes[-1][1]:
            node.id = self._new(node.id, "t")
        return node


def normalize_source(source: str) -> str:
    """The program part of a case, normalized (see the module docstring).

    Falls back to the source with blank lines and comments removed when it does not parse.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        lines = [ln.split("#", 1)[0].rstrip() for ln in source.splitlines()]
        return "\n".join(ln for ln in lines if ln)
    body = [n for n in tree.body if _keep_module_stmt(n)]
    for node in body:
        for fn in ast.walk(node):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                fn.body = _strip_docstrings(fn.body)
                if not isinstance(fn, ast.ClassDef):
                    fn.body = _inline_temporaries(fn.body)
    module = ast.Module(body=body, type_ignores=[])
    _unwrap_single_returns(module)
    module = _Rename().visit(module)
    ast.fix_missing_locations(module)
    return ast.unparse(module).strip()


# -- signatures of a case file without running it --------------------------------------


def signatures_of_source(source: str) -> set[Signature]:
    """The signatures a case file stands for: one per FOUND entry and per EXPECT kind
    (EXPECT has no stage, so its stage kind is "*", matched by kind alone)."""
    meta = case_metadata(source)
    norm = normalize_source(source)
    sigs = set()
    for entry in meta.get("FOUND", ()) or ():
        if isinstance(entry, str):
            kind, stage = parse_found(entry)
            sigs.add(Signature(kind, lane_of(kind), stage, norm))
    for kind in meta.get("EXPECT", ()) or ():
        if isinstance(kind, str):
            sigs.add(Signature(kind, lane_of(kind), "*", norm))
    return sigs
