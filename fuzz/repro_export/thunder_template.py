"""Template text of the Thunder repro scripts: one `thunder.jit(program, cache="symbolic
values")` fed the calls in order, each call compared with eager (exceptions, outputs,
inputs after the call, which outputs share storage with which inputs) and, on a cache
hit, the traces it ran compared with a fresh jit's traces of the same call. The steps
are those of fuzz/backends/thunder/lane.py and fuzz/oracles/ (results, aliasing,
fuzz.backends.thunder.oracles.cache), on the stock Thunder.
"""

from __future__ import annotations

IMPORTS = """import random
import re
import sys
import traceback
import warnings

import torch
import torch.utils._pytree as pytree

warnings.simplefilter("ignore")


# lightning-thunder 0.2.6 looks these named-tensor methods up on torch.Tensor when it is
# imported; torch 2.13 removed them. Stubs of the same names let it import (they are
# never called here).
def _removed(name):
    def method(*args, **kwargs):
        raise NotImplementedError(f"torch.Tensor.{name} was removed from torch")

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("align_as", "align_to", "has_names", "refine_names", "rename"):
    if not hasattr(torch.Tensor, _name):
        setattr(torch.Tensor, _name, _removed(_name))

import thunder  # noqa: E402
"""

RUN = '''

# ---- running one call --------------------------------------------------------------


def copy_call(args):
    """A copy of a call's arguments that keeps which tensors share storage (a view of a
    base stays a view of the copied base)."""
    bases, copies = {}, {}

    def copy(t):
        if id(t) in copies:
            return copies[id(t)]
        storage = t.untyped_storage()
        key = storage.data_ptr() if storage.nbytes() else id(t)
        if key not in bases:
            whole = (storage.nbytes() // t.element_size(),)
            bases[key] = torch.empty(0, dtype=t.dtype).set_(storage, 0, whole, (1,)).clone()
        out = bases[key].as_strided(t.size(), t.stride(), t.storage_offset())
        if t.is_leaf:
            out.requires_grad_(t.requires_grad)
        copies[id(t)] = out
        return out

    return tuple(pytree.tree_map_only(torch.Tensor, copy, a) for a in args)


def snapshot(x):
    return x.detach().clone() if isinstance(x, torch.Tensor) else x


def storage(t):
    return t.untyped_storage().data_ptr() if t.untyped_storage().nbytes() else None


class Record:
    """What one call did: outputs, the exception, inputs after the call, and which outputs
    share storage with which inputs or earlier outputs."""

    def __init__(self, fn, args):
        inputs = leaves(args)
        self.outputs, self.error, self.sharing = [], None, set()
        try:
            outputs = leaves(fn(*args))
        except Exception as e:
            self.error = error_text(e)
            outputs = []
        where = {}
        for j, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and storage(x) is not None:
                where.setdefault(storage(x), f"input {j}")
        for i, t in enumerate(outputs):
            if isinstance(t, torch.Tensor) and storage(t) is not None:
                if storage(t) in where:
                    self.sharing.add((f"output {i}", where[storage(t)]))
                else:
                    where[storage(t)] = f"output {i}"
        self.outputs = [snapshot(x) for x in outputs]
        self.inputs_after = [snapshot(x) for x in inputs]


def compare(i, expected, got):
    """What differs between eager's record and Thunder's, for the checks in CHECKS."""
    problems = []
    if expected.error and got.error:
        return []  # both refused the call
    if got.error:
        if "crash" in CHECKS:
            problems.append(f"call {i}: thunder raised {got.error}; eager returns a result")
        return problems
    if expected.error:
        if "wrong-result" in CHECKS:
            problems.append(f"call {i}: eager raised {expected.error}, thunder returned a result")
        return problems
    if "wrong-result" in CHECKS:
        if len(expected.outputs) != len(got.outputs):
            problems.append(f"call {i}: {len(got.outputs)} outputs, eager {len(expected.outputs)}")
        for j, (e, a) in enumerate(zip(expected.outputs, got.outputs)):
            if (why := mismatch(e, a)) is not None:
                problems.append(f"call {i}: output {j}: {why}")
    if "aliasing" in CHECKS:
        for j, (e, a) in enumerate(zip(expected.inputs_after, got.inputs_after)):
            if (why := mismatch(e, a)) is not None:
                problems.append(f"call {i}: input {j} after the call (mutation): {why}")
        if expected.sharing != got.sharing:
            problems.append(
                f"call {i}: storage sharing {sorted(got.sharing)}, eager {sorted(expected.sharing)}"
            )
    return problems
'''

# thunder.unsound-hit: the trace comparison of fuzz/backends/thunder/oracles/cache.py
TRACES = '''

# ---- comparing a cached trace with a fresh one -------------------------------------

_SKIP = ("import ", "from ", "@", "Constructed by")
_SOURCE_LINE = re.compile(r"^\\S+:\\d+:")  # `/tmp/x.py:6:  v = x0 + x1`
_PARAMS = re.compile(r"^def \\w+\\((.*)\\):")
_TARGETS = re.compile(r"^\\(?([\\w, ]+?)\\)?\\s*=\\s*\\S")  # `t15 = ...`, `(i0, i1) = ...`
_ANNOTATED = re.compile(r'^(.*?)\\s*#\\s*(\\w+): "([^"]*)"$')  # `code  # name: "type"`
_DECLARATION = re.compile(r'^(\\w+): "([^"]*)"$')  # `x0: "cpu f32[...]"`
_TENSOR_TYPE = re.compile(r"^(\\S+) (\\w+)\\[(.*)\\]$")


def _type_of(printed):
    """`cpu f32[[...], [...]]` -> `cpu f32 rank=2`; `int 2` -> `int` (no sizes, no values)."""
    if m := _TENSOR_TYPE.match(printed):
        depth, commas = 0, 0
        for ch in m.group(3):
            depth += (ch == "[") - (ch == "]")
            commas += ch == "," and depth == 0
        return f"{m.group(1)} {m.group(2)} rank={commas + 1 if m.group(3).strip() else 0}"
    return printed.split(" ", 1)[0]


def normalized(trace):
    """A trace's text with what differs between two traces of one program taken out: the
    names it binds are renumbered in order, sizes and values in type comments dropped."""
    lines = []
    for raw in str(trace).splitlines():
        line = raw.strip().lstrip("#").strip()
        if not line or line.startswith(_SKIP) or _SOURCE_LINE.match(line):
            continue
        if m := _DECLARATION.match(line):
            line = f"{m.group(1)} :: {_type_of(m.group(2))}"
        elif m := _ANNOTATED.match(line):
            line = f"{m.group(1)} :: {_type_of(m.group(3))}"
        lines.append(line)
    names = []
    for line in lines:
        if m := _PARAMS.match(line):
            params = m.group(1).split(",")
            names += [p.strip().split(":")[0].split("=")[0].strip("*") for p in params]
        elif not line.startswith(("return", "def ")) and (m := _TARGETS.match(line)):
            names += [n.strip() for n in m.group(1).split(",")]
    names = [n for n in dict.fromkeys(names) if n.isidentifier()]
    if not names:
        return "\\n".join(lines)
    longest_first = sorted(names, key=len, reverse=True)
    token = re.compile(r"(?<![\\w.])(" + "|".join(map(re.escape, longest_first)) + r")\\b")
    renamed = {}

    def rename(m):
        return renamed.setdefault(m.group(1), f"%{len(renamed)}")

    return "\\n".join(token.sub(rename, line) for line in lines)


def unsound_hit(i, cached_traces, args):
    """A cache hit must run the traces a fresh jit builds for the same call."""
    fresh = thunder.jit(program, cache="symbolic values")
    record = Record(fresh, copy_call(args))
    if record.error:
        return [f"call {i}: a cache hit ran a cached trace, but a fresh jit raises {record.error}"]
    fresh_traces = thunder.last_traces(fresh)
    for name, cached, new in (
        ("initial", cached_traces[0], fresh_traces[0]),
        ("execution", cached_traces[-1], fresh_traces[-1]),
    ):
        if normalized(cached) != normalized(new):
            print(f"call {i}: cached {name} trace:\\n{cached}\\nfresh {name} trace:\\n{new}")
            return [f"call {i}: a cache hit ran a cached {name} trace unlike a fresh trace"]
    return []
'''

CHECK = '''

# ---- the check ---------------------------------------------------------------------

# Errors by which Thunder says it does not support a program (a limitation, not this bug).
UNSUPPORTED = re.compile(
    r"NotImplementedError|not supported|[Uu]nsupported|is not registered|manual registration|"
    r"DynamicOutputShapeException|Expected pred to be bool|only consists of tensor leaves"
)


def check():
    """One jitted function called in order; each call must match eager."""
    random.seed(0)
    torch.manual_seed(0)
    all_calls = calls()
    jitted = thunder.jit(program, cache="symbolic values")
    problems = []
    for i, args in enumerate(all_calls):
        expected = Record(program, copy_call(args))
        hits = thunder.cache_hits(jitted)
        got = Record(jitted, copy_call(args))
        if got.error and not expected.error and UNSUPPORTED.search(got.error):
            print(f"note: thunder does not support this program: {got.error}")
            break
        hit = thunder.cache_hits(jitted) > hits
        print(f"call {i}: {'cache hit' if hit else 'traced'}", flush=True)
        problems += compare(i, expected, got)
        if "unsound-hit" in CHECKS and hit and not got.error:
            problems += unsound_hit(i, thunder.last_traces(jitted), args)
    return problems
'''
