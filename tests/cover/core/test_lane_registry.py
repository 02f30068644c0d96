"""A lane a plugin adds registers itself and its kinds through public functions
(fuzz.backends.registry.register_lane, fuzz.divergence.register_kinds); a built-in lane
declares its kinds through the same function, in a torch-free module of its own."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.backends import registry
from fuzz.backends.base import LaneReport
from fuzz.case import case_from_source
from fuzz.case_runner import run_case
from fuzz.divergence import (
    BUILT_IN_KINDS_MODULES,
    KINDS,
    Divergence,
    register_kinds,
    unregister_kinds,
)

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """import torch


def program(x):
    return (x + 1.0,)


def calls():
    return [(torch.randn(3),)]
"""


class ToyLane:
    """Diverges on every call it is given."""

    name = "toy"

    def unavailable(self, device):
        return None

    def run(self, case, calls, reference, device):
        report = LaneReport(self.name, device)
        report.divergences.append(Divergence("toy.always", "call[0]", "toy lane", device))
        return report


@pytest.fixture
def restored():
    """The toy lane and its kinds forgotten after the test, through the public function
    (not a plugin's concern: a plugin's registrations last as long as its process)."""
    yield
    registry.unregister_lane("toy")


def test_a_plugin_lane_and_its_kinds_run_like_a_built_in_lane(restored):
    assert registry.unknown_names(["toy"], ["cpu"]) is not None
    with pytest.raises(ValueError, match="unknown divergence kind"):
        Divergence("toy.always", "call[0]", "not registered yet")
    registry.register_lane(ToyLane(), kinds={"toy.always": "the toy lane always diverges"})
    assert registry.unknown_names(["toy", "exir"], ["cpu"]) is None
    assert KINDS["toy.always"] == "the toy lane always diverges"
    result = run_case(case_from_source(SOURCE, "toy_case"), lanes=("toy",), devices=("cpu",))
    assert [d.kind for d in result.divergences] == ["toy.always"]


def test_kinds_are_named_after_their_lane_and_never_redefined(restored):
    with pytest.raises(ValueError, match="toy.<what>"):
        register_kinds("toy", {"thunder.crash": "not the toy lane's"})
    with pytest.raises(ValueError, match="already registered"):
        register_kinds("thunder", {"thunder.crash": "another meaning"})
    meaning = KINDS["thunder.crash"]
    register_kinds("thunder", {"thunder.crash": meaning})  # the same declaration again
    assert KINDS["thunder.crash"] == meaning and "toy.always" not in KINDS


def test_the_catalogue_is_read_only_and_built_in_kinds_stay():
    with pytest.raises(TypeError):
        KINDS["toy.always"] = "written past register_kinds"  # type: ignore[index]
    with pytest.raises(ValueError, match="built in"):
        unregister_kinds("exir")
    registry.unregister_lane("exir")  # the lane's object only: its kinds are the lane's
    assert "exir.crash" in KINDS and "exir" in registry.LANE_NAMES


# Run in a fresh process: record every register_kinds call from the start, read the whole
# catalogue, then register a plugin lane; report who declared what and what got imported.
_DECLARATIONS = """
import json, sys
import fuzz.divergence as divergence
FIRST = {first!r}
calls, original = [], divergence.register_kinds
def recording(lane, kinds, same_bugs_as=None):
    calls.append([lane, dict(kinds), sys._getframe(1).f_globals["__name__"]])
    original(lane, kinds, same_bugs_as)
divergence.register_kinds = recording  # before anything binds the name
if FIRST:
    __import__(FIRST)
from fuzz.backends import registry
catalogue = list(divergence.KINDS.items())
class Toy:
    name = "toy"
registry.register_lane(Toy(), kinds={{"toy.always": "the toy lane always diverges"}})
print(json.dumps({{
    "calls": calls, "catalogue": catalogue,
    "torch": "torch" in sys.modules,
    "lanes": sorted(m for m in sys.modules if m.endswith((".lane", ".base"))),
}}))
"""


@pytest.mark.parametrize("first", [None, *reversed(BUILT_IN_KINDS_MODULES.values())])
def test_built_in_lanes_declare_their_kinds_in_their_own_torch_free_module(first):
    proc = subprocess.run(
        [sys.executable, "-c", _DECLARATIONS.format(first=first)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout)
    assert seen["torch"] is False and seen["lanes"] == []
    assert list(BUILT_IN_KINDS_MODULES) == list(registry.LANE_NAMES)
    built_in, plugin = seen["calls"][:-1], seen["calls"][-1]
    # Each built-in lane once, by its own module; a plugin's lane through the same function.
    assert sorted((lane, by) for lane, _, by in built_in) == sorted(
        (lane, f"fuzz.backends.{lane}.kinds") for lane in BUILT_IN_KINDS_MODULES
    )
    assert plugin == ["toy", {"toy.always": "the toy lane always diverges"}, registry.__name__]
    # The catalogue: exactly what the lanes declared, built-in lanes in their listed order,
    # whichever kinds module was imported first.
    declared = {lane: kinds for lane, kinds, _ in built_in}
    expected = [item for lane in BUILT_IN_KINDS_MODULES for item in declared[lane].items()]
    assert [tuple(item) for item in seen["catalogue"]] == expected
    assert dict(expected) == {k: v for k, v in KINDS.items() if not k.startswith("toy.")}


_EXPECT_WITHOUT_TORCH = """
import sys
sys.modules["torch"] = None  # importing torch now fails: nothing below may need it
from pathlib import Path
from fuzz.case import CaseError, case_from_source
SOURCE = "def program(x):\\n    return (x,)\\n\\n\\ndef calls():\\n    return [(1,)]\\n"
case_from_source(SOURCE + 'EXPECT = ("exir.crash", "thunder.crash")\\n', "ok", Path("corpus/ok.py"))
try:
    case_from_source(SOURCE + 'EXPECT = ("exir.crsh",)\\n', "typo", Path("corpus/typo.py"))
except CaseError as e:
    print(e)
print(sorted(m for m in sys.modules if m.startswith("fuzz.backends")))
"""


def test_case_files_are_checked_against_the_lanes_kinds_before_any_lane_is_imported():
    proc = subprocess.run(
        [sys.executable, "-c", _EXPECT_WITHOUT_TORCH], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    error, modules = proc.stdout.splitlines()
    assert "corpus/typo.py" in error and "unknown divergence kinds ['exir.crsh']" in error
    # Of the lanes, only their kinds modules (and the packages around them) were imported.
    packages = {module.rsplit(".", 1)[0] for module in BUILT_IN_KINDS_MODULES.values()}
    kinds_modules = set(BUILT_IN_KINDS_MODULES.values())
    assert set(ast.literal_eval(modules)) == {"fuzz.backends"} | packages | kinds_modules


def test_the_xnnpack_lane_draws_the_exir_lanes_programs_and_calls():
    """The XNNPACK lane is ExecuTorch with a delegate: its programs use the EXIR lane's op
    set (what the delegate does not take runs on the portable kernels) and its calls the
    EXIR lane's contract (number inputs static), less the ops it leaves out (ops whose
    kernels the pip runtime lacks: tests/stacks/xnnpack/test_xnnpack_left_out.py)."""
    from fuzz import ops
    from fuzz.calls import PLAN_STYLES

    assert "xnnpack" in registry.LANE_NAMES
    assert {"xnnpack.crash", "xnnpack.runtime-result"} <= set(KINDS)
    left_out = set(ops.LEFT_OUT["xnnpack"])
    exir = ops.for_lanes(["exir"])
    assert ops.for_lanes(["xnnpack"]) == tuple(op for op in exir if op.name not in left_out)
    assert left_out <= {op.name for op in exir}
    assert PLAN_STYLES["xnnpack"] == PLAN_STYLES["exir"]


def test_the_thunderfx_lane_draws_the_thunder_lanes_programs_and_calls():
    """The ThunderFX lane is Thunder under Dynamo: its programs use the Thunder lane's op
    set and its calls flip sizes to 1 as the Thunder lane's do (Dynamo's 0/1
    specialization is one of its guards); it runs both Thunder compat shims and Thunder's
    speedups."""
    from fuzz import ops, speedups
    from fuzz.calls import PLAN_STYLES

    assert "thunderfx" in registry.LANE_NAMES
    assert {
        "thunderfx.crash",
        "thunderfx.wrong-result",
        "thunderfx.unsound-hit",
        "thunderfx.aliasing",
    } <= set(KINDS)
    assert ops.for_lanes(["thunderfx"]) == ops.for_lanes(["thunder"])
    assert PLAN_STYLES["thunderfx"] == PLAN_STYLES["thunder"]
    assert set(speedups.COMPAT["thunder"]) < set(speedups.COMPAT["thunderfx"])
    assert speedups.SPEEDUPS_OF["thunderfx"] == "thunder"


def test_a_night_means_each_lane_on_the_devices_its_stack_runs_on():
    """The XNNPACK delegate runs on the CPU: a night asked for cpu and cuda runs it on the
    CPU only, and neither its workers nor its report count xnnpack/cuda (a blind spot or a
    lane that cannot run, otherwise)."""
    pairs = registry.lane_devices(["thunder", "xnnpack"], ["cpu", "cuda"])
    assert pairs == [("thunder", "cpu"), ("xnnpack", "cpu"), ("thunder", "cuda")]
    assert registry.lane_devices(["exir"], ["cuda"]) == [("exir", "cuda")]


def test_the_default_night_runs_every_lane_the_mission_lanes_weighing_twice():
    from collections import Counter

    from fuzz.defaults import NIGHTLY_LANES
    from fuzz.strategies import lane_choice

    assert set(NIGHTLY_LANES) == set(registry.LANE_NAMES)
    shares = Counter(lane_choice(NIGHTLY_LANES).elements)
    assert shares == {"thunder": 2, "exir": 2, "xnnpack": 1, "thunderfx": 1, "thunderprims": 1}
    # lanes of one weight draw as before there were weights (seeded figures keep)
    assert tuple(lane_choice(("thunder", "exir")).elements) == ("thunder", "exir")
    assert tuple(lane_choice(("xnnpack", "thunderfx")).elements) == ("xnnpack", "thunderfx")
