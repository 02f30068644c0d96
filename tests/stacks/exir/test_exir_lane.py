"""The EXIR lane end to end: hand-written cases through export -> to_edge ->
to_executorch -> the pip runtime, on the stock executorch 1.5.1 stack."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest
import torch

import fuzz.custom_ops  # noqa: F401
from fuzz.backends.base import LaneReport
from fuzz.backends.eager import run_eager
from fuzz.backends.exir import ExirLane
from fuzz.backends.exir.emulate import emulated_call, explained
from fuzz.backends.exir.inputs import derive_dims
from fuzz.backends.exir.pipeline import build
from fuzz.backends.exir.runtime import LoadedProgram, fuzz_kernels
from fuzz.case import case_from_source
from fuzz.case_runner import run_case
from fuzz.divergence import Divergence
from fuzz.tensors import materialize

warnings.filterwarnings("ignore")


def run(src: str, lane: ExirLane | None = None, device: str = "cpu", name: str = "case"):
    case = case_from_source(src, name)
    calls = materialize(case, 0, device)
    return (lane or ExirLane(strict=True)).run(case, calls, run_eager(case, calls), device)


CLEAN = {
    "elementwise_broadcast": """
import torch
def program(x, y):
    return (x * 2 + y).relu(), x - y.sin(), (x[:, :1] * y).sum(1)
def calls():
    return [(torch.randn(4, 3), torch.randn(3)), (torch.randn(6, 3), torch.randn(3)),
            (torch.randn(2, 3), torch.randn(3))]
""",
    "shape_branch": """
import torch
def program(x):
    if x.shape[0] > 3:
        return x.sum(0) * 2
    return x - 1
def calls():
    return [(torch.randn(5, 3),), (torch.randn(7, 3),), (torch.randn(4, 3),)]
""",
    "cond": """
import torch
def program(x):
    return torch.cond(x.sum() > 0, lambda x: (x * 2).sin(), lambda x: x.cos() + 1, (x,))
def calls():
    return [(torch.rand(4, 3),), (-torch.rand(5, 3),), (torch.rand(3, 3),)]
""",
    "view": """
import torch
def program(x):
    y = x.view(-1)
    return y * 2, x.t(), x.view(-1, 1)[1:].sum()
def calls():
    return [(torch.randn(4, 3),), (torch.randn(5, 3),)]
""",
    "inplace_input": """
import torch
def program(x, y):
    x.add_(y)
    return x * 2
def calls():
    return [(torch.randn(4, 3), torch.randn(3)), (torch.randn(5, 3), torch.randn(3))]
""",
    "masked_select": """
import torch
def program(x):
    return torch.masked_select(x, x > 0) * 3
def calls():
    return [(torch.randn(4, 3),), (torch.randn(6, 3),)]
""",
    "custom_ops": """
import torch
import fuzz.custom_ops
def program(x):
    a = torch.ops.fuzz.positive_head(x, 10)
    p, n = torch.ops.fuzz.split_sign(x)
    return a * 2, torch.ops.fuzz.positive(x) + 1, p.sum() - n.sum()
def calls():
    return [(torch.randn(4, 8),), (torch.randn(6, 8),)]
""",
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_programs_do_not_diverge(name):
    report = run(CLEAN[name], name=name)
    assert report.skipped is None
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["oracle-error"] == 0
    assert report.counters["calls-checked"] >= 2
    for stage in ("export", "to_edge", "to_executorch", "runtime", "checks"):
        assert stage in report.timings


def test_custom_ops_run_on_the_runtime_with_our_kernels_and_plan_their_bound():
    """The fuzz:: ops run on the pip runtime through our kernels (fuzz/backends/exir/
    kernels); where those cannot be built the program is checked statically, and says why."""
    report = run(CLEAN["custom_ops"])
    ours = fuzz_kernels()
    if "error" in ours:
        assert report.details["runtime"].startswith("static checks only")
        assert ours["error"] in report.details["runtime"]
        assert report.counters["runtime-static-only"] == 1
    else:
        assert report.details["runtime"].startswith("pip runtime, with our fuzz:: kernels")
        assert report.counters["runtime-fuzz-kernels"] == 1
        assert report.counters["calls-checked"] >= 1
    rows = {r["aten"]: r for r in report.details["bounds"]}
    head = next(r for a, r in rows.items() if a.startswith("positive_head"))
    assert head["planned"] == head["needed"] == 10
    split = [r for a, r in rows.items() if a.startswith("split_sign")]
    assert split and all(
        r["planned"] == r["needed"] == 8 * 6 for r in split
    )  # u <= numel, s in [4, 6]
    assert report.counters["tensors-checked"] > 0


def test_ordinary_programs_run_on_the_pip_runtime_and_probe_the_contract():
    report = run(CLEAN["elementwise_broadcast"])
    assert report.details["runtime"] == "pip runtime"
    probes = {p["kind"]: p for p in report.details["contract_probes"]}
    assert probes["upper"]["accepted"] is False
    assert report.details["range_constraints"] == {"s77": "VR[2, 6]"}


def test_shape_branch_feeds_only_calls_inside_the_contract():
    src = CLEAN["shape_branch"].replace("(torch.randn(4, 3),)]", "(torch.randn(2, 3),)]")
    report = run(src)
    assert report.divergences == []
    assert report.counters["call-outside-contract"] == 1
    assert "outside s" in report.details["outside_contract"][0]


def test_nonzero_output_dim_order_is_an_upstream_runtime_bug():
    """Known upstream divergence (executorch 1.5.1): nonzero's output is planned with
    PyTorch's transposed strides (dim order (1, 0)), but the portable nonzero.out kernel
    writes it row-major, so the runtime returns scrambled indices. Kept as a finding."""
    report = run("""
import torch
def program(x):
    return torch.nonzero(x > 0)
def calls():
    return [(torch.tensor([[1., -1, 2], [-3, 4, 5]]),)]
""")
    assert [(d.kind, d.stage) for d in report.divergences] == [("exir.runtime-result", "call[0]")]


def test_per_dim_bounds_are_unchecked_upstream():
    """Known upstream gap (executorch 1.5.1): the runtime only checks that an input's
    element count fits the planned capacity, not each dim's range. With two dynamic dims
    an input beyond one dim's max but within the capacity is accepted; here export kept
    the `x.shape[1] < 6` branch (s1 in [2, 5]) and x of 7 columns silently runs it."""
    report = run("""
import torch
def program(x):
    if x.shape[1] < 6:
        return x * 2
    return x - 100
def calls():
    return [(torch.randn(4, 3),), (torch.randn(8, 5),), (torch.randn(2, 2),)]
""")
    upper = [d for d in report.divergences if d.stage == "contract[upper]"]
    assert {d.kind for d in report.divergences} == {"exir.unchecked-contract"} and upper
    assert any(
        p["probe"].endswith("(max 5 + 1)") and p["accepted"]
        for p in report.details["contract_probes"]
    )


def test_export_example_avoids_zero_one_specialization():
    report = run("""
import torch
def program(x):
    return x * 2
def calls():
    return [(torch.randn(1, 4),), (torch.randn(5, 4),), (torch.randn(3, 4),)]
""")
    assert report.details["example_call"] == 1 and report.divergences == []
    assert report.counters["call-outside-contract"] == 1  # the size-1 call: s in [2, 5]


def test_unsupported_control_flow_is_a_skip():
    report = run("""
import torch
from torch._higher_order_ops.while_loop import while_loop
def program(x):
    return while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2), (torch.tensor(0), x))
def calls():
    return [(torch.randn(3, 4),)]
""")
    assert report.skipped and "Unsupported control flow operator" in report.skipped
    assert report.counters["unsupported-skip"] == 1


def test_export_refusal_is_a_skip():
    report = run("""
import torch
def program(x):
    if x.sum() > 0:
        return x + 1
    return x - 1
def calls():
    return [(torch.randn(3),)]
""")
    assert report.skipped and report.skipped.startswith("export refused")
    assert report.counters["export-skip"] == 1 and report.divergences == []


def test_cond_branch_returning_a_view_of_its_operand_is_a_refusal():
    """torch.cond branches may not alias their operands: Dynamo's `Unsupported` ("Higher
    order ops do not support aliasing") comes wrapped in UncapturedHigherOrderOpError,
    which is export refusing the program, not a crash."""
    report = run("""
import torch
def program(x):
    return (torch.cond(x.shape[0] > 2, lambda x: x[:, ::2], lambda x: x[:, 1::2], (x,)),)
def calls():
    return [(torch.randn(3, 4),), (torch.randn(2, 4),)]
DIMS = {"x": {0: (2, 4)}}
""")
    assert report.skipped and report.skipped.startswith("export refused"), report.divergences
    assert "UncapturedHigherOrderOpError" in report.skipped
    assert report.counters["export-skip"] == 1 and report.divergences == []


def test_uncaptured_higher_order_op_from_a_crash_stays_a_crash():
    from torch._dynamo.exc import UncapturedHigherOrderOpError, Unsupported

    from fuzz.backends.exir.pipeline import is_export_refusal

    def raised_from(cause):
        try:
            try:
                raise cause
            except Exception:
                raise UncapturedHigherOrderOpError("cond") from None
        except UncapturedHigherOrderOpError as e:
            return e

    assert is_export_refusal(raised_from(Unsupported("aliasing")))
    assert not is_export_refusal(raised_from(AssertionError("internal")))
    assert not is_export_refusal(UncapturedHigherOrderOpError("cond"))


def test_specialized_int_argument_bounds_the_contract():
    report = run("""
import torch
def program(x, k):
    return x * k
def calls():
    return [(torch.randn(3), 2), (torch.randn(3), 2), (torch.randn(3), 5)]
""")
    assert report.divergences == []
    assert report.counters["call-outside-contract"] == 1
    assert "constant 2" in report.details["outside_contract"][0]
    assert report.details["contract_probes"][0]["kind"] == "static"


def test_dims_come_from_the_case_or_the_calls():
    case = case_from_source(
        """
import torch
def program(x, y):
    return x + y
DIMS = {"y": {0: (2, 9)}}
def calls():
    return [(torch.randn(3, 2), torch.randn(3, 2)), (torch.randn(5, 2), torch.randn(5, 2))]
""",
        "dims",
    )
    calls = materialize(case)
    assert derive_dims(case, calls) == {1: {0: (2, 9)}}
    case.dims = None
    assert derive_dims(case, calls) == {0: {0: (3, 5)}, 1: {0: (3, 5)}}


def test_through_the_engine():
    case = case_from_source(CLEAN["view"], "view")
    result = run_case(case, lanes=("exir",), devices=("cpu",))
    (report,) = result.reports
    assert report.lane == "exir" and report.divergences == [] and "eager" in report.timings


def test_unavailable():
    lane = ExirLane()
    assert lane.unavailable("cpu") is None
    assert (lane.unavailable("cuda") is None) == torch.cuda.is_available()
    assert lane.unavailable("tpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_reference_with_host_planning():
    report = run(CLEAN["elementwise_broadcast"], device="cuda")
    assert report.device == "cuda" and report.skipped is None
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.details["runtime"] == "pip runtime"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_custom_ops_and_cond_through_the_engine():
    for name in ("custom_ops", "cond"):
        result = run_case(case_from_source(CLEAN[name], name), lanes=("exir",), devices=("cuda",))
        (report,) = result.reports
        assert report.device == "cuda" and report.divergences == [], [
            str(d) for d in report.divergences
        ]


# ---------------------------------------------------------------------------------------
# What the program is exported for and which calls are inside its contract


def test_transposed_first_call_is_exported_contiguous():
    """The runtime is fed contiguous copies. Exporting with a transposed example gave the
    input dim order (1, 0), and relu.out failed on every call ("2 input tensors have
    different dim orders", error 0x12)."""
    report = run("""
import torch
def program(x):
    return (torch.relu(x),)
def calls():
    return [(torch.randn(4, 3).transpose(-2, -1),), (torch.randn(3, 4),), (torch.randn(3, 2),)]
""")
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["calls-checked"] == 3


def test_aliased_first_call_is_exported_as_distinct_inputs():
    """Export turns one tensor passed twice into one node (pytorch/pytorch#144683): with
    (a, b, a) as the example the graph read x2 where the program reads x0, and every
    later call with distinct x0 and x2 came back wrong."""
    report = run("""
import torch
def program(x0, x1, x2):
    return (torch.cond(x2.shape[0] > 2, lambda x: x * 2.0, lambda x: -x, (x2,)), -x0.sin(), x1 + 1)
def calls():
    a = torch.randn(3)
    return [(a, torch.randn(3), a), (torch.randn(3), torch.randn(3), torch.randn(3)),
            (torch.randn(4), torch.randn(4), torch.randn(4))]
""")
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["calls-checked"] == 3


# The registered upstream gap itself (its program, calls and DIMS).
GUARDED = (
    Path(__file__).resolve().parents[3] / "corpus" / "executorch_runtime_unchecked_guards.py"
).read_text()


def test_calls_failing_an_export_guard_are_outside_the_contract():
    """Export (Dim.AUTO, [3, 5]) keeps `x.size()[0] != 3` as a guard beside the ranges.
    A call of size 3 is outside the contract: it is not compared (it was reported as
    exir.runtime-result), and the guard probe shows the runtime accepting it (a known
    upstream gap, corpus/executorch_runtime_unchecked_guards.py)."""
    report = run(GUARDED)
    assert report.counters["call-outside-contract"] == 1
    assert "fails the export guard x.size()[0] != 3" in report.details["outside_contract"][0]
    assert [(d.kind, d.stage) for d in report.divergences] == [
        ("exir.unchecked-contract", "contract[guard]")
    ]
    (probe,) = [p for p in report.details["contract_probes"] if p["kind"] == "guard"]
    assert (
        probe["probe"].startswith("s") and "=3 (in [3, 5]" in probe["probe"] and probe["accepted"]
    )


def test_overlapping_inputs_of_a_mutating_program_are_outside_the_contract():
    """Eager writes through x0 into an x1 that shares its memory; the runtime takes every
    input as its own buffer, so such calls cannot be compared. Disjoint views of one
    base, and aliasing in a program that mutates nothing, stay inside."""
    report = run("""
import torch
def program(x0, x1):
    x0.mul_(2.0)
    return (x0 + x1,)
def calls():
    a, b = torch.randn(3), torch.randn(6)
    return [(torch.randn(3), torch.randn(3)), (a, a), (b[:3], b[3:]), (b[:3], b[1:4])]
""")
    assert report.divergences == [], [str(d) for d in report.divergences]
    assert report.counters["calls-checked"] == 2
    assert [w.split(":")[0] for w in report.details["outside_contract"]] == ["call[1]", "call[3]"]
    assert all("share memory" in w for w in report.details["outside_contract"])
    report = run("""
import torch
def program(x0, x1):
    return (x0 * x1,)
def calls():
    a = torch.randn(3)
    return [(torch.randn(3), torch.randn(3)), (a, a)]
""")
    assert report.divergences == [] and report.counters["calls-checked"] == 2


def test_a_failed_runtime_call_says_which_check_failed():
    """The binding's error is "execute() failed with error 0x12" for any kernel's failed
    check; the lane adds the runtime's log, also where pytest captures sys.stderr (the
    pip runtime writes its log through it)."""
    source = (
        "import torch\n\ndef program(x, w):\n"
        "    return (torch.nn.functional.embedding(x, w),)\n\n"
        "def calls():\n    return [(torch.tensor([1, 2]), torch.randn(4, 3))]\n\n"
        "LANES = ('exir',)\n"
    )
    case = case_from_source(source, "embedding_check")
    loaded = LoadedProgram(build(case.program, materialize(case)[0], {}).buffer)
    bad = torch.tensor([1, -2])  # export's example was in range; the runtime checks >= 0
    with pytest.raises(RuntimeError) as raised:
        loaded.execute([bad, torch.randn(4, 3)])
    message = str(raised.value)
    assert "failed with error 0x12 (runtime log: " in message, message
    assert "op_embedding.cpp" in message and "indices_ptr[i] >= 0" in message, message
    assert "cpuinfo_utils" not in message and "with type id" not in message, message


def test_a_wrong_runtime_result_is_matched_against_emulated_kernel_semantics():
    """fuzz/backends/exir/emulate.py: the runtime's integer remainder (C's `%`) makes a
    float result differ; the exported program under the truncating remainder computes
    what the runtime did, which the divergence says (`matches_eager_with`). Runtime
    outputs that the emulation does not compute are not explained."""
    source = (
        "import torch\n\ndef program(x):\n"
        "    return (torch.rsqrt(torch.remainder(x, 3).abs() + 1),)\n\n"
        "def calls():\n    return [(torch.tensor([-4, 3, -2, 5]),)]\n\n"
        "LANES = ('exir',)\n"
    )
    result = run_case(case_from_source(source, "remainder_downstream"), ("exir",), ("cpu",))
    (wrong,) = [d for d in result.divergences if d.kind == "exir.runtime-result"]
    assert wrong.data["facts"]["matches_eager_with"] == ["int-remainder-truncated"], wrong
    # Not explained: runtime outputs that neither eager nor the emulation computes.
    args = (torch.tensor([-4, 3, -2, 5]),)
    b = build(case_from_source(source, "r").program, args, {})
    emulated = emulated_call(b.ep, "int-remainder-truncated", args)
    other = dataclasses.replace(emulated, outputs=[o + 1 for o in emulated.outputs])
    for got, names in ((emulated, ["int-remainder-truncated"]), (other, None)):
        report = LaneReport("exir", "cpu")
        report.details["ops"] = ["aten.remainder.Scalar", "aten.remainder.Scalar:int64"]
        found = [Divergence("exir.runtime-result", "call[0]", "values differ", "cpu")]
        assert explained(found, report, b.ep, args, got, "call[0]") == found
        assert (report.details.get("explained_by_call") or {}).get(0) == names
