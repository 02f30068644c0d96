"""The `executorch-specprop` fix (SpecPropPass double tracing, executorch < 1.1).

Every "without fix" / "with fix" observation runs in this process with exactly that
state, switched by `fixes.applied(...)` (the fix patches the `SpecPropPass` class in
place and `fixes.remove` restores it exactly; the previous state comes back after the
block). Reports are computed once per process and cached: test order and xdist
placement do not matter.

Programs (x: float32 (s, 3) with s = Dim.AUTO(min=2, max=8), non-strict export):
  * base:      y = fuzz.positive_head(x, 10); return y * 2
               (the fake kernel states u <= 10 itself)
  * check4:    the same plus torch._check(y.shape[0] <= 4) in the program
  * unbounded: a test-only op whose fake kernel states no bound, plus
               torch._check(y.shape[0] <= 10) in the program

What executorch 1.0.1 does without the fix (observed): the spec of the data-dependent
node carries another unbacked symbol than its meta["val"] (e.g. u15 vs u16). In `base`
the plan is still [10] / 48 bytes, because the fake kernel bounds both symbols; in
`check4` the spec keeps the kernel's loose bound: [10] / 48 bytes instead of [4] / 16;
in `unbounded` the spec's upper bound is int_oo and to_executorch raises.
"""

from __future__ import annotations

import functools
import json
import os
import sys

import pytest
from packaging.version import Version

import fixes
from fuzz.errors import error_text

FIX = "executorch-specprop"


def _require(*states: str) -> None:
    """Skip unless the fix's state here is one of `states` ("applies": executorch < 1.1,
    the buggy pass, e.g. the legacy lane's 1.0.1; "upstream": 1.1+)."""
    state = fixes.state_for(FIX)
    if state.state not in states:
        pytest.skip(str(state))


def _require_legacy() -> None:
    _require("applies")


def _require_fixed_upstream() -> None:
    _require("upstream")


def _require_executorch() -> None:
    _require("applies", "upstream")


@pytest.fixture(scope="module", autouse=True)
def flatc_on_path():
    """executorch 1.0.1 serializes programs with the `flatc` its wheel installs next to
    the interpreter."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(
            "PATH", os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
        )
        yield


@functools.cache
def _probe(mode: str, fix: bool) -> dict:
    """The report of `mode` with exactly the fix applied (`fix`) or no fix at all, as
    plain JSON data (what the assertions compare: lists, numbers, strings)."""
    import warnings

    with warnings.catch_warnings(), fixes.applied([FIX] if fix else "off") as statuses:
        warnings.simplefilter("ignore")
        report = _observe(mode, [str(s) for s in statuses] if fix else [])
    return json.loads(json.dumps(report, default=str))


# --------------------------------------------------------------------------- registry


def test_fix_is_registered_with_its_version_range():
    fix = fixes.all_fixes()[FIX]
    assert fix.package == "executorch"
    assert fix.upstream == "https://github.com/pytorch/executorch/pull/15485"
    assert fix.versions == "<1.1"
    assert fix.covers(Version("1.0.1")) and not fix.covers(Version("1.1.0"))
    assert fix.already_fixed(Version("1.1.0")) and fix.already_fixed(Version("1.5.1"))
    assert not fix.already_fixed(Version("1.0.1"))


# ------------------------------------------------------------------ legacy: the bug


def test_legacy_without_fix_spec_symbol_differs_from_meta_val():
    _require_legacy()
    report = _probe("plan", fix=False)
    assert report["status"] == []
    base = report["programs"]["base"]
    spec = base["after_specprop"]
    # The spec was built from the first trace, the graph from the second.
    assert spec["spec_shape"] != spec["val_shape"], spec
    assert spec["spec_shape"].startswith("(u") and spec["val_shape"].startswith("(u")
    # The fake kernel bounds both symbols by 10, so here the plan survives.
    assert spec["spec_upper"] == [10] and spec["val_upper"] == [10]
    assert base["planned"]["shape"] == [10]
    assert base["planned"]["allocated_memory"] == 48


def test_legacy_without_fix_program_bound_is_lost():
    _require_legacy()
    prog = _probe("plan", fix=False)["programs"]["check4"]
    spec = prog["after_specprop"]
    assert spec["spec_shape"] != spec["val_shape"], spec
    # The graph knows u <= 4; the spec only knows the fake kernel's u <= 10.
    assert spec["val_upper"] == [4]
    assert spec["spec_upper"] == [10]
    assert prog["planned"]["shape"] == [10]
    assert prog["planned"]["allocated_memory"] == 48  # instead of 16


def test_legacy_without_fix_unbounded_kernel_raises():
    _require_legacy()
    prog = _probe("plan", fix=False)["programs"]["unbounded"]
    spec = prog["after_specprop"]
    assert spec["val_upper"] == [10]
    assert spec["spec_upper"] == ["int_oo"]
    assert prog["planned"] is None
    assert "Cannot evaluate the shape upper bound" in prog["error"]


# --------------------------------------------------------------- legacy: with fix


def test_legacy_with_fix_spec_matches_meta_val_and_plan_is_exact():
    _require_legacy()
    report = _probe("plan", fix=True)
    assert report["status"] == ["executorch-specprop (executorch 1.0.1): applied"]
    assert report["patched"] is True
    expected = {"base": ([10], 48), "check4": ([4], 16), "unbounded": ([10], 48)}
    for name, (shape, nbytes) in expected.items():
        prog = report["programs"][name]
        spec = prog["after_specprop"]
        assert spec["spec_shape"] == spec["val_shape"], (name, spec)
        assert spec["spec_upper"] == spec["val_upper"] == shape, (name, spec)
        assert prog["error"] is None, (name, prog["error"])
        assert prog["planned"]["shape"] == shape, name
        assert prog["planned"]["allocated_memory"] == nbytes, name
        assert prog["planned"]["shape_dynamism"] == "DYNAMIC_BOUND", name


def test_legacy_with_fix_patches_the_class_every_importer_sees():
    _require_legacy()
    report = _probe("plan", fix=True)
    assert report["same_class_everywhere"] is True
    # The double-tracing per-node hooks are gone; the pass re-traces once.
    assert report["old_hooks_left"] == []


# ------------------------------------------------------------ main lane (fixed upstream)


def test_main_fix_is_a_noop_and_plan_is_already_exact():
    _require_fixed_upstream()
    report = _probe("plan", fix=True)
    assert len(report["status"]) == 1
    assert report["status"][0].endswith(": upstream")
    assert report["patched"] is False
    expected = {"base": ([10], 48), "check4": ([4], 16), "unbounded": ([10], 48)}
    for name, (shape, nbytes) in expected.items():
        prog = report["programs"][name]
        spec = prog["after_specprop"]
        assert spec["spec_shape"] == spec["val_shape"], (name, spec)
        assert prog["planned"]["shape"] == shape, name
        assert prog["planned"]["allocated_memory"] == nbytes, name


# ------------------------------------------------------------------ spec aliasing


def test_getitem_and_output_share_their_argument_spec():
    """split_sign returns two tensors: each getitem must hold the very spec object of
    its tuple element, and the graph output the very spec of what it returns (so that
    memory planning gives them one allocation)."""
    _require_executorch()
    report = _probe("alias", fix=True)
    assert report["status"][0].endswith((": applied", ": upstream"))
    for stage in ("after_specprop", "after_to_executorch"):
        a = report[stage]
        assert a["getitem_is_element"] == [True, True], (stage, a)
        assert a["output_is_arg"] == [True, True], (stage, a)
        # Distinct tensors keep distinct specs.
        assert a["elements_distinct"] is True, (stage, a)
    planned = report["after_to_executorch"]
    assert planned["getitem_offsets_match_producer"] is True
    # Both outputs bounded by numel(x) = 8 * 3 float32 -> 96 bytes each.
    assert planned["output_allocated"] == [96, 96]
    a = report["after_specprop"]
    assert a["spec_shapes"] == a["val_shapes"]


def test_control_flow_specs_under_the_fix():
    """Upstream's cond/while spec-prop regressions (added with the fix in 1.1), re-run
    against the backport: nested graph modules get specs from their own meta["val"]
    and the programs still lower and plan."""
    _require_executorch()
    report = _probe("control", fix=True)
    assert report["status"][0].endswith((": applied", ": upstream"))
    assert report["cond"] == {"spec_len": 1, "upper": 20, "lowered": True}, report
    assert report["while"] == {"spec_len": 2, "upper": 10}, report


# ===================================================================== observations


@functools.cache
def _unbounded_library():
    """`fuzz_specprop_test::unbounded`: a data-dependent op whose fake kernel states no
    bound (defined once per process; the Library object is kept alive by the cache)."""
    import torch

    lib = torch.library.Library("fuzz_specprop_test", "DEF")
    lib.define("unbounded(Tensor x) -> Tensor")
    lib.define("unbounded.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")

    def _unbounded(t):
        flat = t.reshape(-1)
        return flat[flat > 0].clone()

    def _unbounded_out(t, *, out):
        v = _unbounded(t)
        out.resize_(v.shape)
        return out.copy_(v)

    torch.library.impl("fuzz_specprop_test::unbounded", "CompositeExplicitAutograd", lib=lib)(
        _unbounded
    )
    torch.library.impl("fuzz_specprop_test::unbounded.out", "CompositeExplicitAutograd", lib=lib)(
        _unbounded_out
    )

    @torch.library.register_fake("fuzz_specprop_test::unbounded", lib=lib)
    def _unbounded_fake(t):
        return t.new_empty((torch.library.get_ctx().new_dynamic_size(),))

    @torch.library.register_fake("fuzz_specprop_test::unbounded.out", lib=lib)
    def _unbounded_out_fake(t, *, out):
        return out

    return lib


def _observe(mode: str, status: list[str]) -> dict:
    """What SpecPropPass and to_executorch do on the programs of `mode`, with whatever
    fix state the caller set."""
    import copy
    import operator

    import torch
    from executorch.exir import to_edge
    from executorch.exir.passes import spec_prop_pass
    from executorch.exir.sym_util import eval_upper_bound
    from torch.export import Dim, export

    import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz)
    from fixes import executorch_specprop as es

    def upper(d):
        try:
            b = eval_upper_bound(d)
        except Exception as e:  # noqa: BLE001
            return f"error: {e}"
        return b if isinstance(b, int) else str(b)

    def shape_str(t):
        return str(tuple(t.shape)).replace(" ", "")

    x = torch.randn(4, 3)
    dyn = {"x": {0: Dim.AUTO(min=2, max=8)}}

    def export_edge(module):
        return to_edge(export(module, (x,), dynamic_shapes=dyn, strict=False))

    report: dict = {"status": status}
    cls = spec_prop_pass.SpecPropPass
    report["patched"] = bool(getattr(cls, es.MARKER, False))

    if mode == "plan":
        _unbounded_library()

        class Base(torch.nn.Module):
            def forward(self, x):
                y = torch.ops.fuzz.positive_head(x, 10)
                return y * 2

        class Check4(torch.nn.Module):
            def forward(self, x):
                y = torch.ops.fuzz.positive_head(x, 10)
                torch._check(y.shape[0] <= 4)
                return y * 2

        class Unbounded(torch.nn.Module):
            def forward(self, x):
                y = torch.ops.fuzz_specprop_test.unbounded(x)
                torch._check(y.shape[0] <= 10)
                return y * 2

        def is_dd(node):
            name = str(node.target)
            return node.op == "call_function" and ("positive_head" in name or "unbounded" in name)

        programs = {}
        for name, module in (("base", Base()), ("check4", Check4()), ("unbounded", Unbounded())):
            edge = export_edge(module)
            gm = copy.deepcopy(edge.exported_program().graph_module)
            res = cls()(gm)
            node = next(n for n in res.graph_module.graph.nodes if is_dd(n))
            spec, val = node.meta["spec"], node.meta["val"]
            entry = {
                "after_specprop": {
                    "spec_shape": shape_str(spec),
                    "val_shape": shape_str(val),
                    "spec_upper": [upper(d) for d in spec.shape],
                    "val_upper": [upper(d) for d in val.shape],
                },
                "planned": None,
                "error": None,
            }
            try:
                et = edge.to_executorch()
            except Exception as e:  # noqa: BLE001
                entry["error"] = error_text(e, None)
            else:
                gm2 = et.exported_program().graph_module
                node = next(n for n in gm2.graph.nodes if is_dd(n))
                spec = node.meta["spec"]
                entry["planned"] = {
                    "shape": list(spec.shape),
                    "allocated_memory": spec.allocated_memory,
                    "shape_dynamism": spec.shape_dynamism.name,
                    "mem_id": spec.mem_id,
                }
                entry["non_const_buffer_sizes"] = gm2.meta.get("non_const_buffer_sizes")
            programs[name] = entry
        report["programs"] = programs

        from executorch.exir import lowered_backend_module
        from executorch.exir import passes as exir_passes
        from executorch.exir.program import _program

        report["same_class_everywhere"] = (
            _program.SpecPropPass is cls
            and exir_passes.SpecPropPass is cls
            and lowered_backend_module.SpecPropPass is cls
        )
        report["old_hooks_left"] = [h for h in es.OLD_HOOKS if h in cls.__dict__]

    elif mode == "alias":

        class Split(torch.nn.Module):
            def forward(self, x):
                p, n = torch.ops.fuzz.split_sign(x)
                return p, n * 2

        def aliasing(gm):
            nodes = list(gm.graph.nodes)
            producer = next(n for n in nodes if "split_sign" in str(n.target))
            getitems = sorted(
                (n for n in nodes if n.target is operator.getitem and n.args[0] is producer),
                key=lambda n: n.args[1],
            )
            out = next(n for n in nodes if n.op == "output")
            elements = producer.meta["spec"]
            returned = out.args[0]
            out_specs = out.meta["spec"]
            return {
                "getitem_is_element": [g.meta["spec"] is elements[g.args[1]] for g in getitems],
                "output_is_arg": [s is r.meta["spec"] for s, r in zip(out_specs, returned)],
                "elements_distinct": elements[0] is not elements[1],
                "spec_shapes": [shape_str(s) for s in elements],
                "val_shapes": [shape_str(v) for v in producer.meta["val"]],
                "getitem_offsets_match_producer": all(
                    (g.meta["spec"].mem_id, g.meta["spec"].mem_offset)
                    == (elements[g.args[1]].mem_id, elements[g.args[1]].mem_offset)
                    for g in getitems
                ),
                "output_allocated": [s.allocated_memory for s in out_specs],
            }

        edge = export_edge(Split())
        res = cls()(copy.deepcopy(edge.exported_program().graph_module))
        report["after_specprop"] = aliasing(res.graph_module)
        et = edge.to_executorch()
        report["after_to_executorch"] = aliasing(et.exported_program().graph_module)
    elif mode == "control":

        class Cond(torch.nn.Module):
            def forward(self, x):
                return torch.cond(x[0] > 0, lambda v: v * 2, lambda v: v + 1, [x])

        class While(torch.nn.Module):
            def forward(self, i):
                _, acc = torch._higher_order_ops.while_loop(
                    lambda i, acc: i[0] > 0, lambda i, acc: (i - 1, acc + i), (i, torch.zeros(10))
                )
                return acc

        cases = {
            "cond": (Cond(), (torch.ones(10),), {"x": {0: Dim("n", min=1, max=20)}}, "cond", 0),
            # The emitter of both versions rejects while_loop: specs only, no lowering.
            "while": (While(), (torch.tensor([5.0]),), None, "while_loop", 1),
        }
        for name, (module, args, shapes, hop, idx) in cases.items():
            edge = to_edge(export(module, args, dynamic_shapes=shapes, strict=False))
            res = cls()(copy.deepcopy(edge.exported_program().graph_module))
            node = next(
                n
                for n in res.graph_module.graph.nodes
                if hasattr(n.target, "name") and n.target.name() == hop
            )
            spec = node.meta["spec"]
            report[name] = {"spec_len": len(spec), "upper": upper(spec[idx].shape[0])}
            if hop == "cond":
                try:
                    edge.to_executorch()
                    report[name]["lowered"] = True
                except Exception as e:  # noqa: BLE001
                    report[name]["lowered"] = error_text(e, 500)
    else:
        raise ValueError(f"unknown mode {mode}")
    return report
