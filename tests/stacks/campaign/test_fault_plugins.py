"""The fault-injection benchmark's plugins (tests/faults/): each one is live.

For every fault, a small hand-written case (written here, in the corpus case format)
runs through `python -m fuzz.outcome CASE LANE cpu --fixes on` in a fresh process: with
`--plugin tests.faults.NAME` it must diverge with the fault's kind, without it it
must pass. One test per fault (two subprocesses, ~15-40 s each: each imports torch and
the lane's stack), so `pytest -n auto` spreads them. Another subprocess checks that every
plugin uninstalls exactly (the original objects come back).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fuzz.backends.registry import LANE_NAMES
from fuzz.procs import child_env
from tests.faults import FAULTS

ROOT = Path(__file__).resolve().parents[3]

# name -> (lane, case source, the divergence kind the fault must show)
CASES: dict[str, tuple[str, str, str]] = {
    "planner_overlap": (
        "exir",
        """
        def program(x):
            a = x * 2.0
            b = a + 1.0
            c = b.sum(0)
            d = b.sum(1)
            return (c * d,)

        def calls():
            return [(torch.randn(8, 8),)]
        """,
        "exir.overlap",
    ),
    "bound_exclusive": (
        "exir",
        """
        def program(x):
            return (x * 2.0 + 1.0,)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(8, 4),)]

        DIMS = {"x": {0: (2, 8)}}
        """,
        "exir.under-allocation",
    ),
    "specprop_binary_shortcut": (
        "exir",
        """
        def program(a, b):
            return (a + b,)

        def calls():
            return [(torch.randn(1, 4), torch.randn(3, 4))]
        """,
        "exir.spec-meta",
    ),
    "promotion_zero_dim": (
        "exir",
        """
        def program(x):
            return (x * 0.5,)

        def calls():
            return [(torch.tensor([1, 2, 3], dtype=torch.int32),)]
        """,
        "exir.runtime-result",
    ),
    "cond_jump": (
        "exir",
        """
        def program(x):
            def then(x):
                return x + 1.0

            def other(x):
                return x - 1.0

            return (torch.cond(x.sum() > 0, then, other, (x,)),)

        def calls():
            return [(torch.tensor([1.0, 2.0, 3.0]),), (torch.tensor([-1.0, -2.0, 0.5]),)]
        """,
        "exir.runtime-result",
    ),
    "export_transpose_size1": (
        "exir",
        """
        def program(x):
            return (x.transpose(0, 1) * 2.0,)

        def calls():
            return [(torch.randn(1, 4),)]
        """,
        "exir.runtime-result",
    ),
    "recorder_forget_eq": (
        "thunder",
        """
        def program(a):
            if a.shape[0] == 2:
                return (a * 2.0,)
            return (a * 3.0,)

        def calls():
            return [(torch.randn(2, 3),), (torch.randn(3, 3),)]
        """,
        "thunder.unsound-hit",
    ),
    "prologue_number_type": (
        "thunder",
        """
        def program(x, n):
            return (x * n,)

        def calls():
            x = torch.tensor([1, 2, 3])
            return [(x, 3), (x, 3.0)]
        """,
        "thunder.unsound-hit",
    ),
    "thunder_keepdim_size1": (
        "thunder",
        """
        def program(x):
            s = x.sum(dim=1, keepdim=False)
            if tuple(s.shape) == (3,):
                return (s * 2.0,)
            return (s * 3.0,)

        def calls():
            return [(torch.randn(3, 1),)]
        """,
        "thunder.wrong-result",
    ),
    "thunder_broadcast_max": (
        "thunder",
        """
        def program(a, b):
            return (a + b,)

        def calls():
            return [(torch.randn(0, 3), torch.randn(1, 3))]
        """,
        "thunder.crash",
    ),
    "export_floordiv_trunc": (
        "exir",
        """
        def program(a, b):
            return (a // b,)

        def calls():
            return [(torch.tensor([-7, 7, 6, -1, 5]), torch.tensor([2, -2, 3, 4, 2]))]
        """,
        "exir.runtime-result",
    ),
    "thunder_flip_size1": (
        "thunder",
        """
        def program(x):
            return (torch.flip(x, (0, 1)) * 2.0,)

        def calls():
            return [(torch.randn(3, 1),)]
        """,
        "thunder.wrong-result",
    ),
    "thunder_pad_low_high": (
        "thunderprims",
        """
        def program(x):
            return (F.pad(x, (1, 2), value=-2.5) * 2.0,)

        def calls():
            return [(torch.randn(3, 4),)]
        """,
        "thunderprims.wrong-result",
    ),
    "logsumexp_squeeze_first": (
        "exir",
        """
        def program(x):
            return (torch.logsumexp(x, dim=(0, 2)),)

        def calls():
            return [(torch.randn(3, 4, 5),)]
        """,
        "exir.runtime-result",
    ),
    "planner_list_operand_lifetime": (
        "exir",
        """
        def program(x):
            a = x * 2.0
            b = x + 1.0
            return (torch.cat([a, b]) * 3.0,)

        def calls():
            return [(torch.randn(4, 3),)]
        """,
        "exir.overlap",
    ),
    "xnnpack_sub_swapped": (
        "xnnpack",
        """
        def program(a, b):
            return (torch.softmax(a - b, -1),)

        def calls():
            return [(torch.randn(3, 8), torch.randn(3, 8)), (torch.randn(5, 8), torch.randn(5, 8))]

        DIMS = {"a": {0: (1, 16)}, "b": {0: (1, 16)}}
        """,
        "xnnpack.runtime-result",
    ),
    "dynamo_lower_bound_guard": (
        "thunderfx",
        """
        def program(x):
            if x.shape[0] > 3:
                return (x * 2.0,)
            return (x + 1.0,)

        def calls():
            return [(torch.randn(5, 3),), (torch.randn(2, 3),)]
        """,
        "thunderfx.unsound-hit",
    ),
    "emitter_int_list_order": (
        "exir",
        """
        def program(x):
            return (x.reshape(x.shape[0] * 2, 6) * 2.0,)

        def calls():
            return [(torch.randn(4, 2, 6),), (torch.randn(5, 2, 6),)]

        DIMS = {"x": {0: (2, 8)}}
        """,
        "exir.runtime-result",
    ),
    "out_args_sorted": (
        "exir",
        """
        def program(x):
            values, indices = torch.topk(x, 2)
            return (values * 2.0, indices)

        def calls():
            return [(torch.randn(3, 5),)]
        """,
        "exir.crash",
    ),
}


def write_case(tmp_path: Path, name: str) -> Path:
    lane, body, _ = CASES[name]
    path = tmp_path / f"fault_{name}.py"
    source = f'"""Proof that fault {name} is live."""\n\n'
    source += "import torch\nimport torch.nn.functional as F\n\n"
    source += textwrap.dedent(body).strip() + f"\n\n\nLANES = ({lane!r},)\n"
    path.write_text(source)
    return path


def outcome(case: Path, lane: str, plugin: str | None) -> dict:
    cmd = [sys.executable, "-m", "fuzz.outcome", str(case), lane, "cpu", "--fixes", "on"]
    if plugin:
        cmd += ["--plugin", plugin]
    proc = subprocess.run(
        cmd, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=600
    )
    for line in proc.stdout.splitlines():
        if line.startswith("OUTCOME "):
            return json.loads(line[len("OUTCOME ") :])
    raise AssertionError(f"no OUTCOME (rc {proc.returncode}):\n{proc.stderr[-4000:]}")


def test_every_fault_has_a_case_and_a_module():
    assert len(FAULTS) >= 8
    assert set(CASES) == set(FAULTS)
    for name, (module, lane, what, where) in FAULTS.items():
        assert module == f"tests.faults.{name}"
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file()
        assert lane == CASES[name][0] and lane in LANE_NAMES
        assert what and where


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_fault_is_live(tmp_path, name):
    lane, _, kind = CASES[name]
    case = write_case(tmp_path, name)
    faulty = outcome(case, lane, FAULTS[name][0])
    kinds = {d["kind"] for d in faulty["divergences"]}
    assert faulty["status"] == "divergence", faulty
    assert kind in kinds, faulty
    clean = outcome(case, lane, None)
    assert clean["status"] == "pass", clean


_UNINSTALL = """
import importlib, json, sys
import fixes
fixes.apply("on")
from fuzz.speedups import compat_state
from tests.faults import FAULTS
bad = []
for name, (module, *_rest) in FAULTS.items():
    mod = importlib.import_module(module)
    saved = mod.PATCHES.patches()
    if not saved:
        bad.append(f"{name}: installed nothing ({mod.PATCHES.skipped})")
    if compat_state().get(mod.PATCHES.name) != [p.where for p in saved]:
        bad.append(f"{name}: not recorded")
    for p in saved:
        if not p.is_applied() or p.is_restored():
            bad.append(f"{name}: {p.where} not replaced")
    mod.uninstall()
    for p in saved:
        if not p.is_restored():
            bad.append(f"{name}: {p.where} not restored")
    if mod.PATCHES.name in compat_state():
        bad.append(f"{name}: still recorded after uninstall()")
    mod.install()
    if len(mod.PATCHES.patches()) != len(saved):
        bad.append(f"{name}: install() after uninstall() differs")
    mod.uninstall()
print("BAD " + json.dumps(bad))
"""


def child_json(code: str, tag: str):
    """Run `code` in a fresh Python (the faults install themselves on import) and return
    the JSON it printed after `tag` on its last such line."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith(tag + " ")]
    assert lines, proc.stderr[-4000:]
    return json.loads(lines[-1][len(tag) + 1 :])


@pytest.mark.slow
def test_every_fault_uninstalls_exactly():
    assert child_json(_UNINSTALL, "BAD") == []


_LOGSUMEXP_DTYPES = """
import json, sys, torch
from torch._decomp import decomposition_table
stock = decomposition_table[torch.ops.aten.logsumexp.default]
import tests.faults.logsumexp_squeeze_first as fault
faulty = decomposition_table[torch.ops.aten.logsumexp.default]
torch.manual_seed(0)
rows = {}
for name, x in {"float32": torch.randn(3, 4, 5), "int64": torch.randint(-3, 4, (3, 4, 5))}.items():
    for dims, keepdim in (((0, 2), False), ((0, 2), True), ((1,), False)):
        a, b = stock(x, dims, keepdim), faulty(x, dims, keepdim)
        same = a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b)
        rows[f"{name} {dims} {keepdim}"] = [list(b.shape), str(b.dtype), same]
fault.uninstall()
print("ROWS " + json.dumps(rows))
"""


@pytest.mark.slow
def test_the_logsumexp_fault_reaches_int_inputs_as_upstream_promotes_them():
    """The slip sits in upstream's body, under its INT_TO_FLOAT wrapper: an int operand
    shows it as a float one does, and a keepdim or single-dim call shows nothing."""
    rows = child_json(_LOGSUMEXP_DTYPES, "ROWS")
    for dtype in ("float32", "int64"):
        assert rows[f"{dtype} (0, 2) False"] == [[4, 4], "torch.float32", False]
        assert rows[f"{dtype} (0, 2) True"] == [[1, 4, 1], "torch.float32", True]
        assert rows[f"{dtype} (1,) False"] == [[3, 5], "torch.float32", True]
