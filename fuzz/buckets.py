"""Buckets: which divergences are probably one root cause, before anything is shrunk.

A nightly campaign sees the same bug in many programs, and different bugs of the same
kind. The bucket of a divergence is the kind, the stage kind (call index dropped, probe
kept: fuzz.divergence.stage_kind) and a *discriminator* chosen per kind from what tells
root causes apart:

    <lane>.crash              the exception type and the head of its message, digits and
                              names normalized, and where the ExecuTorch runtime logged
                              the failure (its source files and the failed operator, as
                              "(runtime log: ...)" ends the message: every kernel's failed
                              check is the same "execute() failed with error 0x12",
                              fuzz/backends/exir/runtime.py) (a process death: the signal and, when
                              faulthandler printed the stack, the innermost frame
                              `facts.at`, fuzz.procs.crash_site; or "hang")
    thunder.unsound-hit       the first op that differs between the cached and the fresh
                              trace, and the shape decisions that flipped at that call
    thunder.wrong-result,     the shape decisions that flipped at that call, whether the
    thunder.aliasing          default cache shares the divergence (control), and for
                              aliasing whether values (mutation) or sharing differ
    exir.spec-meta,           the operator of the planned node (node names without their
    exir.under-allocation,    numeric suffix; a program input's placeholder, x0 or arg1_1,
                              is "x" or "arg": which input is no root cause)
    exir.bound-loss
    exir.pipeline-variance    the operator of the first plan row that changed
    exir.aliasing             the rule that failed (S1..S5, E2..E4)
    exir.overlap              the planning algorithm
    exir.runtime-result,      the op families of the program and the decisions flipped
    exir.edge-result
    exir.unchecked-contract   nothing more: the probe kind is in the stage

"Flipped decisions" are the kinds of shape decisions (fuzz.ops.spec.Decision) that go,
at the diverging call, a way no earlier call went: a cache bug on a `<` branch is another
bug than one on a broadcast. They come from the generator (`ProgramFacts`);
hand-written cases have none. One representative per bucket is shrunk, then findings
are deduplicated again by their minimized program's signature (fuzz.signature).

Torch-free: the worker computes buckets, the supervisor and reports only read them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fuzz.divergence import call_index, stage_kind, thunder_jit_kind

_DIGITS = re.compile(r"\d+")
_NODE_SUFFIX = re.compile(r"(_\d+)+$")
_INPUT_NAME = re.compile(r"(?<=^[A-Za-z])\d+$|(?<=^arg)\d+$")
_TRACE_OP = re.compile(r"\b((?:prims|ltorch|torch|clang|aten)\.[\w.]+)")


@dataclasses.dataclass(frozen=True)
class ProgramFacts:
    """What the generator knows of a program: its ops, their families, and per call the
    decision kinds that go a way no earlier call went (`flips_of`)."""

    ops: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    flips: Mapping[int, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "ops": list(self.ops),
            "families": list(self.families),
            "flips": {str(k): list(v) for k, v in self.flips.items()},
        }


def flips_of(outcomes: Sequence[Sequence[Any]], kinds: Sequence[str]) -> dict[int, tuple[str, ...]]:
    """Per call, the kinds of the decisions that go a way no earlier call went (so no cache
    entry can have been traced for it). `outcomes[i][j]` is decision j's outcome at call i
    (None: data-dependent, never a flip)."""
    out = {}
    for i, now in enumerate(outcomes):
        changed = {
            kinds[j]
            for j, v in enumerate(now)
            if v is not None and i > 0 and all(before[j] != v for before in outcomes[:i])
        }
        if changed:
            out[i] = tuple(sorted(changed))
    return out


# Thunder's interpreter wraps an exception raised while tracing: the same error, either way.
_WRAPPED = re.compile(r"^((?:thunder raised )?)(?:\w+\.)*InterpreterError: Encountered exception ")


def _error_head(text: str) -> str:
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else "?"
    first = _WRAPPED.sub(r"\1", first)
    # A symbolic size prints as its proxy, a concrete one as a number: the same error.
    first = re.sub(r"\[IntegerProxy [^\]]*\]|\bIntegerProxy\(.*?\)", "N", first)
    # Likewise torch's symbols (s71: a dynamic size, u0: an unbacked one) in ATen errors.
    first = re.sub(r"\b[su]\d+\b", "N", first)
    first = re.sub(r"\s+while tracing\b.*$", "", first)  # where Thunder was, not what
    first = re.sub(r"0x[0-9a-f]+", "ADDR", first)
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    return _DIGITS.sub("N", first)[:80]


_RUNTIME_LOG = re.compile(r"\s*\(runtime log: (.*)\)?\s*$", re.S)
_LOG_SOURCE = re.compile(r"\[([\w.]+?):\d+\]")
_LOG_OPERATOR = re.compile(r"in operator (\w+(?:::[\w.]+)*)")


def _crash_head(text: str) -> str:
    """`_error_head`, plus where the ExecuTorch runtime's log (fuzz/backends/exir/runtime.py)
    says the call failed: "op_embedding.cpp,method.cpp@aten::embedding.out"."""
    m = _RUNTIME_LOG.search(text or "")
    if m is None:
        return _error_head(text)
    log = m.group(1)
    sources = ",".join(dict.fromkeys(_LOG_SOURCE.findall(log)))
    operator = _LOG_OPERATOR.search(log)
    site = f"{sources}@{operator.group(1)}" if operator else sources
    return f"{_error_head(text[: m.start()])}|{site}"


def node_op(name: str | None) -> str:
    last = (name or "?").split("/")[-1]
    op = _NODE_SUFFIX.sub("", re.sub(r"\[\d+\]$", "", last))
    # A program input's placeholder (x0, x1, arg0): which input is no root cause.
    return _INPUT_NAME.sub("", op) or op


def _flipped(stage: str, facts: ProgramFacts | None) -> str:
    index = call_index(stage)
    if facts is None or index is None:
        return ""
    return "+".join(facts.flips.get(index, ())) or "no-flip"


def _first_trace_op(diff: str) -> str:
    for line in (diff or "").splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            if m := _TRACE_OP.search(line):
                return m.group(1)
    return "?"


def discriminator(divergence: Mapping[str, Any], facts: ProgramFacts | None = None) -> str:
    """What tells this divergence's root cause apart from others of its kind and stage."""
    kind, stage = divergence["kind"], divergence["stage"]
    data = divergence.get("data") or {}
    if kind.endswith(".crash"):
        if stage == "process":
            if "hang" in divergence.get("details", ""):
                return "hang"
            how = str(data.get("signal") or _error_head(divergence.get("details", "")))
            at = (data.get("facts") or {}).get("at")
            return f"{how}|{at}" if at else how
        return _crash_head(data.get("error") or divergence.get("details", ""))
    kind = thunder_jit_kind(kind)  # the Thunder lane's variants are judged as it is
    if kind == "thunder.unsound-hit":
        return f"{_first_trace_op(data.get('diff', ''))}|{_flipped(stage, facts)}"
    if kind in ("thunder.wrong-result", "thunder.aliasing"):
        control = {"diverges too": "shared", "agrees with eager": "cache-only"}.get(
            data.get("control"), "?"
        )
        what = ""
        if kind == "thunder.aliasing":
            what = "mutation|" if "mutation" in divergence.get("details", "") else "sharing|"
        return f"{what}{control}|{_flipped(stage, facts)}"
    if kind in ("exir.spec-meta", "exir.under-allocation", "exir.bound-loss"):
        return node_op(data.get("aten") or data.get("node"))
    if kind == "exir.pipeline-variance":
        changed = data.get("changed") or [{}]
        return node_op(changed[0].get("at")) if "error" not in data else _error_head(data["error"])
    if kind == "exir.aliasing":
        return str(data.get("rule", "?"))
    if kind == "exir.overlap":
        return str(data.get("algo", "?"))
    if kind in ("exir.runtime-result", "exir.edge-result"):
        families = "+".join(sorted(facts.families)) if facts is not None else "?"
        return f"{families}|{_flipped(stage, facts)}"
    return ""


def bucket_of(divergence: Mapping[str, Any], facts: ProgramFacts | None = None) -> str:
    """`kind@stage-kind#discriminator`: divergences in one bucket are shrunk once."""
    return (
        f"{divergence['kind']}@{stage_kind(divergence['stage'])}#{discriminator(divergence, facts)}"
    )
