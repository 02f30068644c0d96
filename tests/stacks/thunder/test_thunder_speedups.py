"""fuzz/backends/thunder/speedups.py changes how fast Thunder traces, never what it traces."""

from __future__ import annotations

import dis
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from fuzz.backends.thunder import speedups
from fuzz.backends.thunder.lane import SYMBOLIC, ThunderLane, _thunder
from fuzz.case import case_from_source
from fuzz.observe import observe_call
from fuzz.strategies import cases
from fuzz.tensors import copy_args, materialize

thunder = _thunder()  # installs the speedups, as the lane does
interpreter = speedups.interpreter
TOOK = re.compile(r"\(took \d+ milliseconds\)")  # trace headers say how long a pass took


def _text(trace) -> str:
    return TOOK.sub("", str(trace))


@pytest.fixture
def restore_speedups():
    was = speedups.installed()
    yield
    speedups.uninstall()  # then afresh: a test may have installed only some of them
    if was:
        speedups.install()


def _traced(case, calls) -> list:
    """Per call: whether it hit the cache, and the prologue, the initial computation
    trace and the execution trace it ran (or the error it raised)."""
    jf = ThunderLane()._jit(case.program, SYMBOLIC)
    out = []
    for args in calls:
        hits = thunder.cache_hits(jf)
        record = observe_call(jf, copy_args(args))
        if record.error is not None:
            out.append(record.error)
            continue
        traces = thunder.last_traces(jf)
        prologue = thunder.last_prologue_traces(jf)[-1]
        texts = (_text(prologue), _text(traces[0]), _text(traces[-1]))
        out.append((thunder.cache_hits(jf) > hits, *texts))
    return out


@settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(cases(lanes=("thunder",)))
def test_generated_programs_trace_the_same_with_and_without_them(generated):
    calls = materialize(generated.case, 0, "cpu")
    try:
        speedups.uninstall()
        stock = _traced(generated.case, calls)
        assert not speedups.installed()  # nothing put them back while tracing
    finally:
        speedups.install()
    assert interpreter.globals_lookup.__wrapped__ is not None  # in effect
    assert _traced(generated.case, calls) == stock


BUILTINS_AND_GLOBALS = """
import torch
SCALE = 2
def program(a, b, n):
    if len(a.shape) == max(1, min(2, n)):
        return (a * SCALE + b).abs(), torch.relu(b)
    return (a - b).sum(0), abs(n)
def calls():
    return [(torch.randn(2, 3), torch.randn(1, 3), 2), (torch.randn(4, 3), torch.randn(3), 1)]
"""


def test_a_global_lookup_returns_the_wrapper_upstreams_path_returns(monkeypatch):
    """Upstream's interpreted `d[k]` populates the wrapped dict's item wrapper and returns
    it; the direct lookaside call returns that very object, for names of the program's
    globals and of builtins."""
    upstream = interpreter.globals_lookup.__wrapped__
    direct = speedups.globals_lookup_calling_the_lookaside(upstream)
    seen: Counter = Counter()

    def both(globals_dict, name):
        expected = upstream(globals_dict, name)
        where = "globals" if name.value in globals_dict.value else "builtins"
        seen[where, direct(globals_dict, name) is expected] += 1
        return expected

    monkeypatch.setattr(interpreter, "globals_lookup", both)
    case = case_from_source(BUILTINS_AND_GLOBALS, "builtins_and_globals")
    _traced(case, materialize(case, 0, "cpu"))
    assert seen["globals", True] and seen["builtins", True]
    assert not seen["globals", False] and not seen["builtins", False]


UNDEFINED_GLOBAL = """
import torch
def program(a):
    return a + UNDEFINED
def calls():
    return [(torch.randn(2),)]
"""


def test_a_missing_global_raises_as_upstream(restore_speedups):
    case = case_from_source(UNDEFINED_GLOBAL, "undefined_global")
    calls = materialize(case, 0, "cpu")
    speedups.uninstall()
    stock = _traced(case, calls)
    assert not speedups.installed()
    speedups.install()
    assert "NameError" in stock[0] and _traced(case, calls) == stock


def test_disassembly_is_remembered_and_equal_to_dis():
    remembering = speedups.DisRememberingInstructions()
    code = test_disassembly_is_remembered_and_equal_to_dis.__code__
    first = list(remembering.get_instructions(code))
    assert first == list(dis.get_instructions(code))
    assert all(a is b for a, b in zip(first, remembering.get_instructions(code)))
    with_line = list(remembering.get_instructions(code, first_line=100))  # not remembered
    assert with_line == list(dis.get_instructions(code, first_line=100)) != first
    assert remembering.opmap is dis.opmap  # the rest is dis's own


def test_every_speedup_is_installed_over_the_upstream_it_reproduces(restore_speedups):
    """On both lanes' Thunder (0.2.6) every speedup is in effect; a Thunder whose sources
    differ would keep upstream's, and this test says which to re-check."""
    speedups.uninstall()
    speedups.install()
    assert speedups.upstream_hashes() == speedups.UPSTREAM_SOURCES, speedups.skipped
    assert not speedups.skipped


def test_a_changed_upstream_keeps_its_own_function(restore_speedups, monkeypatch):
    speedups.uninstall()
    monkeypatch.setitem(speedups.UPSTREAM_SOURCES, "normalize", "0" * 16)
    speedups.install()
    assert "normalize" in speedups.skipped
    assert speedups.symbol.Symbol.normalize is not speedups.normalize_with_remembered_signature
    assert interpreter.globals_lookup.__wrapped__ is not None  # the others still are


def test_install_and_uninstall_restore_upstream(restore_speedups):
    speedups.uninstall()
    symbol = speedups.symbol.Symbol
    upstream = (interpreter.globals_lookup, interpreter.dis, symbol.normalize)
    assert not hasattr(upstream[0], "__wrapped__") and upstream[1] is dis
    speedups.install()
    speedups.install()  # idempotent
    assert interpreter.globals_lookup.__wrapped__ is upstream[0]
    assert isinstance(interpreter.dis, speedups.DisRememberingInstructions)
    speedups.uninstall()
    assert (interpreter.globals_lookup, interpreter.dis, symbol.normalize) == upstream


def test_normalize_binds_as_upstream(restore_speedups):
    add = thunder.torch.add
    speedups.uninstall()
    stock = add.normalize(1.5, 3, alpha=2)
    speedups.install()
    assert add.normalize(1.5, 3, alpha=2) == stock == ((1.5, 3), {"alpha": 2})
