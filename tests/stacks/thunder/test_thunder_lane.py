"""The Thunder lane against stock Thunder 0.2.6 (fixes off, in a subprocess) and in
process (whatever --fixes says): it must flag the seed bug and stay quiet on good cases."""

from __future__ import annotations

import pytest
import torch

from fuzz import ops
from fuzz.calls import plan_sequence
from fuzz.case import case_from_source, load_case
from fuzz.case_runner import run_case
from fuzz.ops.spec import Picker, Symbols, TensorType
from fuzz.program import Node, Program
from fuzz.strategies import make_case
from tests.helpers import ROOT, run_python

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]

# The two examples of ../shared/reference/thunder-symbolic-cache-hit.txt, as programs.
SEED_CASES = {
    "shape-branch": """
import torch
def program(a, b):
    if tuple(a.shape) == tuple((2, 2)):
        return a
    else:
        return b
def calls():
    return [(torch.randn(2, 2), torch.randn(1)), (torch.randn(2, 1), torch.randn(8))]
""",
    "broadcast": """
import torch
def program(a, b):
    return a + b
def calls():
    return [(torch.randn(2, 2), torch.randn(1)), (torch.randn(2, 1), torch.randn(8))]
""",
}

RUN_SEEDS = """
import json
from fuzz.case import case_from_source, load_case
from fuzz.case_runner import run_case
out = {}
for name, source in %r.items():
    result = run_case(case_from_source(source, name), lanes=("thunder",), devices=(%r,))
    out[name] = {"kinds": sorted({d.kind for d in result.divergences}),
                 "control": sorted({d.data.get("control") for d in result.divergences}),
                 "counters": dict(result.reports[0].counters)}
print(json.dumps(out))
"""


@pytest.mark.parametrize("device", DEVICES)
def test_both_reference_examples_are_flagged_on_stock_thunder(device):
    found = run_python(RUN_SEEDS % (SEED_CASES, device), fixes="off")
    # Example 0 returns the wrong tensor after an unguarded tuple comparison.
    assert "thunder.wrong-result" in found["shape-branch"]["kinds"]
    assert "thunder.unsound-hit" in found["shape-branch"]["kinds"]
    # Example 1: right numbers on CPU, wrong trace: only trace comparison sees it.
    assert "thunder.unsound-hit" in found["broadcast"]["kinds"]
    for name, result in found.items():
        assert {k: result["counters"].get(k) for k in ("misses", "hits")} == {
            "misses": 1,
            "hits": 1,
        }, name
        assert result["control"] == ["agrees with eager"], "cache-specific: default cache is right"


def test_derandomized_search_finds_a_cache_hit_divergence_within_200_examples():
    found = run_python(
        """
import json
from fuzz.explore import explore
e = explore(["thunder"], max_examples=200, seed=0,
            kinds=("thunder.wrong-result", "thunder.unsound-hit"))
print(json.dumps({"examples": e.examples, "kinds": sorted(e.kinds),
                  "source": e.found[0].source if e.found else None}))
""",
        fixes="off",
    )
    assert found["source"] is not None, f"no divergence in {found['examples']} examples"
    assert found["examples"] <= 200
    assert set(found["kinds"]) & {"thunder.wrong-result", "thunder.unsound-hit"}, found


NUMBER_SEARCH = """
import json
from fuzz.explore import explore
kinds = ("thunder.wrong-result", "thunder.unsound-hit")

def first_cache_divergence(result):
    return next((d for d in result.divergences if d.kind in kinds), None)

def changed(generated, k):
    before, after = dict(generated.plans[k - 1].sizes), dict(generated.plans[k].sizes)
    return sorted(n for n in after if repr(after[n]) != repr(before[n]))

def only_numbers_changed(generated, result):
    first = first_cache_divergence(result)
    if first is None:
        return False
    k = int(first.stage[len("call["):-1])
    numbers = {generated.program.input_types[i].symbol.name
               for i in generated.program.number_inputs()}
    return k > 0 and bool(changed(generated, k)) and set(changed(generated, k)) <= numbers

e = explore(["thunder"], max_examples=200, seed=0, until=only_numbers_changed)
generated, result = e.found
first = first_cache_divergence(result)
k = int(first.stage[len("call["):-1])
program = generated.program
print(json.dumps({
    "examples": e.examples,
    "kinds": sorted(e.kinds),
    "control": first.data.get("control"),
    "numbers": [program.input_types[i].symbol.name for i in program.number_inputs()],
    "changed": changed(generated, k),
    "source": generated.source,
}))
"""

RUN_SOURCE = """
import json
from fuzz.case import case_from_source
from fuzz.case_runner import run_case
result = run_case(case_from_source(%r, "found"), lanes=("thunder",), devices=("cpu",))
print(json.dumps({"divergences": [[d.kind, d.stage, d.data.get("control")]
                                   for d in result.divergences],
                  "skipped": result.reports[0].skipped}))
"""


def test_derandomized_search_finds_a_cache_divergence_that_needs_a_number_input():
    """Stock Thunder (fixes off): the search finds, by itself, a cache divergence at a call
    where only number inputs changed (same tensor sizes as the call before), e.g. an int
    `n` traced through `math.sqrt(n)` and then served a float. With the fixes on, the same
    case shows no cache-specific divergence."""
    found = run_python(NUMBER_SEARCH, fixes="off")
    assert found["examples"] <= 200
    assert set(found["kinds"]) & {"thunder.wrong-result", "thunder.unsound-hit"}, found
    assert found["control"] == "agrees with eager", "a cache bug: the default cache is right"
    assert found["numbers"], f"no number input:\n{found['source']}"
    assert found["changed"] and set(found["changed"]) <= set(found["numbers"]), found
    fixed = run_python(RUN_SOURCE % found["source"], fixes="on")
    assert fixed["skipped"] is None
    cache_specific = [
        d
        for d in fixed["divergences"]
        if d[0] == "thunder.unsound-hit"
        or (d[0] == "thunder.wrong-result" and d[2] == "agrees with eager")
    ]
    assert not cache_specific, f"{cache_specific}\n{found['source']}"


GOOD = """
import torch
def program(a, b):
    c = a * 2 + b
    return c.sum(-1), c.transpose(0, 1)
def calls():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 6), torch.randn(5, 6)),
            (torch.randn(5, 6), torch.randn(5, 6))]
"""


@pytest.mark.parametrize("device", DEVICES)
def test_decision_preserving_calls_are_clean_and_hit(device):
    result = run_case(case_from_source(GOOD, "good"), lanes=("thunder",), devices=(device,))
    (report,) = result.reports
    assert report.skipped is None and result.divergences == []
    assert report.counters["hits"] == 2 and report.counters["misses"] == 1


def test_programs_thunder_cannot_trace_are_skips_not_divergences():
    source = """
import torch
def program(x):
    return torch.nonzero(x > 0)
def calls():
    return [(torch.randn(3, 4),)]
"""
    (report,) = run_case(
        case_from_source(source, "dd"), lanes=("thunder",), devices=("cpu",)
    ).reports
    assert report.skipped and "unsupported" in report.skipped and not report.divergences
    # The skip names the op: here the function the failing source line calls.
    assert "op torch.nonzero" in report.skipped
    assert report.counters["unsupported:torch.nonzero"] == 1


def test_an_unsupported_generated_op_is_named_by_its_catalogue_name():
    """A generated program with an EXIR-only op forced onto the Thunder lane: the skip
    reason and the `unsupported:<op>` counter name the catalogue op (from META["lines"])."""
    syms = Symbols()
    x = TensorType((syms.size(2, 4), syms.size(2, 4)), root=0)
    types = [x]
    nodes = []
    for name in ("neg", "masked_select", "sin"):
        op = ops.BY_NAME[name]
        (args,) = op.operands(types[-1:], syms)
        args = tuple(len(types) - 1 + a for a in args)
        built = op.build([types[a] for a in args], syms, Picker((0,)))
        nodes.append(Node(name, args, tuple(built.attrs.items()), (len(types),)))
        types.extend(built.outputs)
    program = Program((x,), tuple(nodes), tuple(types), (3,), syms, ())
    generated = make_case(program, plan_sequence(program, [(0,), (1,)], ["preserve"]))
    (report,) = run_case(generated.case, lanes=("thunder",), devices=("cpu",)).reports
    assert report.skipped and report.skipped.startswith("unsupported by thunder: op masked_select")
    assert report.counters["unsupported:masked_select"] == 1 and not report.divergences


def test_input_mutation_and_views_are_checked_on_every_call():
    source = """
import torch
def program(a, b):
    a.add_(b)
    return a.t(), b[:, :1]
def calls():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4))]
"""
    result = run_case(case_from_source(source, "mut"), lanes=("thunder",), devices=("cpu",))
    (report,) = result.reports
    assert report.skipped is None and result.divergences == []
    assert sum(report.counters[k] for k in ("hits", "misses")) == 2


def test_aliasing_oracle_fires_on_inplace_update_of_a_view_sharing_its_base():
    """A real Thunder 0.2.6 bug the harness found (corpus/thunder_disjoint_views_inplace.py):
    an in-place add into one of two disjoint views of a base reads the other view as if it
    were the first, under the default cache too, so it is not a cache bug."""
    case = load_case(ROOT / "corpus" / "thunder_disjoint_views_inplace.py")
    result = run_case(case, lanes=("thunder",), devices=("cpu",))
    aliasing = [d for d in result.divergences if d.kind == "thunder.aliasing"]
    assert aliasing and "mutation" in aliasing[0].details
    assert aliasing[0].data["control"] == "diverges too"


REPEATED = """
import torch
def program(a, n):
    return (a * n + 1.0,)
def calls():
    x = torch.randn(3, 4)
    return [(x, 2), (x.clone(), 2), (torch.randn(5, 4), 2), (torch.randn(3, 4), 2)]
"""


def test_fresh_traces_are_made_once_per_call_signature():
    """Calls 1 and 3 have the signature of call 0 (same shapes, strides, dtypes, number):
    the traces call 0's miss made are their fresh traces; call 2 is new and is traced."""
    from fuzz.backends.thunder.lane import call_signature

    x = torch.randn(3, 4)
    assert call_signature((x, 2)) == call_signature((torch.randn(3, 4), 2))
    assert call_signature((x, 2)) != call_signature((x, 2.0))  # the number's type counts
    assert call_signature((x, x)) != call_signature((x, x.clone()))  # shared storage
    assert call_signature((x, 2)) != call_signature((x[:, :3], 2))  # shape
    assert call_signature((x, 2)) != call_signature((x.double(), 2))  # dtype
    # Strides and offsets are left out: Thunder does not see them (the next test).
    assert call_signature((x, 2)) == call_signature((x.t().contiguous().t(), 2))
    result = run_case(case_from_source(REPEATED, "repeated"), lanes=("thunder",), devices=("cpu",))
    (report,) = result.reports
    assert result.divergences == [] and report.counters["hits"] == 3
    assert report.counters["fresh-trace-reused"] == 2


STRIDED = """
import torch
def program(a, b, n):
    c = a + b
    return (c * n, c.sum(0), a.reshape(-1))
def calls():
    return [(torch.randn(3, 4), torch.randn(1, 4), 2)]
"""


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(lambda t: t.t().contiguous().t(), id="transposed"),
        pytest.param(lambda t: torch.randn(2, t.shape[0], t.shape[1])[1], id="offset"),
        pytest.param(lambda t: torch.randn(t.shape[0], 2 * t.shape[1])[:, 1::2], id="strided"),
    ],
)
def test_strides_do_not_change_a_fresh_trace(layout):
    """Why `call_signature` leaves strides and storage offsets out: a fresh jit of a call
    whose inputs differ only there builds the same traces (initial and execution), and
    the same prologue, on the installed Thunder."""
    from fuzz.backends.thunder.lane import ThunderLane, _thunder
    from fuzz.backends.thunder.oracles.cache import normalize_trace

    case = case_from_source(STRIDED, "strided")
    lane, thunder = ThunderLane(), _thunder()
    a, b = torch.randn(3, 4), torch.randn(1, 4)
    moved = layout(a)
    assert moved.shape == a.shape and (moved.stride(), moved.storage_offset()) != ((4, 1), 0)
    traces = []
    for args in ((a, b, 2), (moved, b, 2)):
        jf = lane._jit(case.program, "symbolic values")
        jf(*args)
        traces.append(
            [
                normalize_trace(str(t))
                for t in (
                    thunder.last_traces(jf)[0],
                    thunder.last_traces(jf)[-1],
                    thunder.last_prologue_traces(jf)[-1],
                )
            ]
        )
    assert traces[0] == traces[1]


def test_an_overlapping_write_is_a_crash_not_a_refusal():
    """Thunder's own refusals are counted skips; torch's error for an in-place write into
    an expanded tensor Thunder handed back (eager wrote into a fresh one) is not one."""
    from fuzz.backends.thunder.lane import refused

    assert refused("NotImplementedError: Thunder does not yet support 'align_corners'.")
    assert refused("RuntimeError: clamp is not supported for boolean type")
    overlap = (
        "RuntimeError: unsupported operation: more than one element of the written-to "
        "tensor refers to a single memory location. Please clone() the tensor before "
        "performing the operation."
    )
    assert not refused(overlap)
