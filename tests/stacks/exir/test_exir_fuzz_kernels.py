"""Our runtime kernels for the `fuzz::` custom ops (fuzz/backends/exir/kernels): a program
holding one runs on the pip runtime and agrees with eager, for every op and the dtypes the
generator draws; where the kernels cannot be built, the lane says why and keeps the
static checks.

Each case goes through the whole lane (export, to_edge, to_executorch, the runtime, the
result oracle) with the lane's `runtime` detail checked, so a test passes only where the
runtime ran the program with our kernels: a case that fell back to static checks would
pass the result oracle without having been compared.
"""

from __future__ import annotations

import warnings

import pytest

import fuzz.custom_ops  # noqa: F401
from fuzz.backends.eager import run_eager
from fuzz.backends.exir import ExirLane, kernels
from fuzz.backends.exir.runtime import KERNELS_ENV, fuzz_kernels
from fuzz.case import case_from_source
from fuzz.tensors import materialize

warnings.filterwarnings("ignore")

DTYPES = ("float32", "float16", "bfloat16", "float64", "int64", "int32", "int8", "uint8", "bool")

# op -> the program's body over x (2-d, dynamic rows) and y (a row to broadcast)
PROGRAMS = {
    "positive": "(torch.ops.fuzz.positive(x),)",
    "positive_head": "(torch.ops.fuzz.positive_head(x, 4),)",
    "split_sign": "torch.ops.fuzz.split_sign(x)",
    "head": "(torch.ops.fuzz.head(x, x.shape[0] + 3),)",
    "bmul": "(torch.ops.fuzz.bmul(x, y), torch.ops.fuzz.bmul(y[:1], x))",
}


def _values(dtype: str, rows: int) -> str:
    """A tensor of `rows` x 3 with positive, negative and zero entries (NaN for floats)."""
    if dtype == "bool":
        return f"torch.rand({rows}, 3) > 0.5"
    if dtype == "uint8":
        return f"torch.randint(0, 4, ({rows}, 3), dtype=torch.uint8)"
    if dtype.startswith("int"):
        return f"torch.randint(-3, 4, ({rows}, 3), dtype=torch.{dtype})"
    return f"torch.randn({rows}, 3, dtype=torch.{dtype}).index_fill(0, torch.tensor([0]), 0.0)"


def _case(op: str, dtype: str, other: str | None = None) -> str:
    other = other or dtype
    calls = ", ".join(f"({_values(dtype, rows)}, ({_values(other, 1)})[0])" for rows in (4, 6, 2))
    nan = (
        "    x = x.clone()\n    x[0, 0] = float('nan')\n"
        if dtype.startswith(("float", "b"))
        else ""
    )
    nan = nan if dtype != "bool" else ""
    return (
        "import torch\nimport fuzz.custom_ops\n\n"
        f"def program(x, y):\n{nan}    return {PROGRAMS[op]}\n\n"
        f"def calls():\n    return [{calls}]\n\nDIMS = {{'x': {{0: (2, 8)}}}}\n"
    )


def _run(source: str):
    case = case_from_source(source, "kernel_case")
    calls = materialize(case, 0, "cpu")
    report = ExirLane(strict=True).run(case, calls, run_eager(case, calls), "cpu")
    return report


def _ran_with_our_kernels_and_agreed(report, calls: int) -> None:
    """The runtime ran the program with our kernels on every call, and no result or crash
    departed from eager."""
    assert report.details.get("runtime", "").startswith("pip runtime, with our fuzz:: kernels")
    assert report.counters["calls-checked"] == calls, report.details
    results = [d for d in report.divergences if d.kind in ("exir.runtime-result", "exir.crash")]
    assert results == [], results


@pytest.fixture(scope="module")
def loaded():
    state = fuzz_kernels()
    if "error" in state:
        pytest.skip(f"our fuzz:: kernels are not available here: {state['error']}")
    return state


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(PROGRAMS))
def test_each_kernel_runs_on_the_runtime_and_agrees_with_eager(loaded, op, dtype):
    _ran_with_our_kernels_and_agreed(_run(_case(op, dtype)), 3)


@pytest.mark.parametrize("a, b", [("float16", "float32"), ("int64", "float16"), ("bool", "int64")])
def test_bmul_of_two_dtypes_computes_in_the_promoted_one(loaded, a, b):
    _ran_with_our_kernels_and_agreed(_run(_case("bmul", a, other=b)), 3)


def test_a_kernel_reads_a_channels_last_operand_through_its_strides(loaded):
    """`c` is planned in dim order [0, 2, 3, 1]: bmul and positive must read it in logical
    order. (No op between: the portable `mul` by a lifted scalar rejects a channels-last
    operand, and that crash would stop the program before our kernels run.)"""
    source = (
        "import torch\nimport fuzz.custom_ops\n\n"
        "def program(x, y):\n"
        "    c = x.to(memory_format=torch.channels_last)\n"
        "    return (torch.ops.fuzz.bmul(c, y), torch.ops.fuzz.positive(c))\n\n"
        "def calls():\n"
        "    return [(torch.randn(2, 3, 4, 5), torch.randn(5)),\n"
        "            (torch.randn(3, 3, 4, 5), torch.randn(5))]\n\n"
        "DIMS = {'x': {0: (2, 4)}}\n"
    )
    report = _run(source)
    _ran_with_our_kernels_and_agreed(report, 2)
    assert "dim_order_ops._to_dim_order_copy.default:dim-order" in report.details["ops"]


def test_a_wrong_result_in_a_program_with_our_kernels_is_a_runtime_divergence(loaded):
    """The result oracle now reaches these programs: one whose exported form departs from
    eager (`+ 1.0` only when not compiling) diverges at the runtime. Before the kernels
    such a program was checked statically only, and this departure went unseen."""
    source = (
        "import torch\nimport fuzz.custom_ops\n\n"
        "def program(x, y):\n"
        "    if torch.compiler.is_compiling():\n"
        "        return (torch.ops.fuzz.bmul(x, y),)\n"
        "    return (torch.ops.fuzz.bmul(x, y) + 1.0,)\n\n"
        "def calls():\n    return [(torch.randn(4, 3), torch.randn(3))]\n\n"
        "DIMS = {'x': {0: (2, 8)}}\n"
    )
    report = _run(source)
    assert report.details.get("runtime", "").startswith("pip runtime, with our fuzz:: kernels")
    assert any(d.kind == "exir.runtime-result" for d in report.divergences), report.divergences


def test_the_switch_and_a_failed_build_leave_the_programs_static_with_the_reason(
    monkeypatch, tmp_path
):
    monkeypatch.setenv(KERNELS_ENV, "off")
    assert fuzz_kernels() == {"error": f"${KERNELS_ENV}=off"}
    monkeypatch.delenv(KERNELS_ENV)
    monkeypatch.setenv("CXX", "/bin/false")
    why = kernels._build(tmp_path / "lib.so")
    assert why is not None and why.startswith("compiling fuzz_ops.cpp failed")
    assert not list(tmp_path.iterdir())  # no partial library left behind
