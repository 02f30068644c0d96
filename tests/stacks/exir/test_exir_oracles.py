"""Each EXIR oracle fires on a hand-made bad case and stays silent on a good one.

Bad cases are made by corrupting a real plan (spec shapes, offsets, spec objects),
by swapping the upstream SpecPropPass for its pre-fix double-tracing form, or by
programs whose natural behaviour exercises the oracle.
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
import torch.utils._pytree as pytree

import fuzz.custom_ops  # noqa: F401
from fuzz.backends.base import LaneReport
from fuzz.backends.eager import run_eager
from fuzz.backends.exir import ExirLane
from fuzz.backends.exir.checks import Calls
from fuzz.backends.exir.contract import contract_probes, outside_contract
from fuzz.backends.exir.graph import storage_root
from fuzz.backends.exir.inputs import derive_dims, lane_reference
from fuzz.backends.exir.interpret import interpret
from fuzz.backends.exir.mapping import map_planned
from fuzz.backends.exir.oracles import aliasing as exir_aliasing
from fuzz.backends.exir.oracles import overlap as exir_overlap
from fuzz.backends.exir.oracles import plan as exir_plan
from fuzz.backends.exir.oracles import variance as exir_variance
from fuzz.backends.exir.pipeline import build, mirror_to_executorch, to_executorch
from fuzz.case import case_from_source
from fuzz.tensors import materialize

warnings.filterwarnings("ignore")


# ---------------------------------------------------------------------------------------
# helpers


def positive_head_10(x):
    return torch.ops.fuzz.positive_head(x, 10) * 2


def positive_checked(x):
    y = torch.ops.fuzz.positive(x)  # fake kernel bound: numel(x)
    torch._check(y.shape[0] <= 5)  # the program's own, tighter bound
    return y + 1


X = torch.tensor(
    [[1.0, -2.0, 3.0, 4.0, -5.0, 6.0, 7.0, 8.0], [9.0, 1.0, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0]]
)
DIMS = {0: {0: (2, 16)}}  # x dim 0 in [2, 16]


def node_spec(b, name):
    node = next(n for n in b.planned_gm.graph.nodes if n.name == name)
    return node.meta["spec"]


def find_node(gm, pred):
    return next(n for n in gm.graph.nodes if pred(n))


def kinds(divs):
    return {d.kind for d in divs}


@pytest.fixture(scope="module")
def head_build():
    """Shared, read-only. Tests that corrupt a plan build their own (`fresh_head`):
    deep copies of graph modules share node.meta values, TensorSpecs included."""
    return build(positive_head_10, (X,), DIMS)


@pytest.fixture
def fresh_head():
    return build(positive_head_10, (X,), DIMS)


class DoubleTraceSpecPropPass:
    """Stand-in for executorch<=1.0's SpecPropPass (the bug fixed upstream in
    pytorch/executorch#15485): the spec comes from one trace of each operator, and the
    node from `super().call_operator(...)`, a second trace with fresh unbacked symbols."""

    def __new__(cls):
        from executorch.exir.pass_base import ExportPass, ProxyValue
        from executorch.exir.passes.spec_prop_pass import SpecPropPass, make_spec
        from torch.fx.passes.infra.pass_base import PassBase

        class _Pass(SpecPropPass):
            def __call__(self, gm):
                return PassBase.__call__(self, gm)

            def call(self, gm):
                return ExportPass.call(self, gm)

            def placeholder(self, name, arg, meta):
                meta["spec"] = make_spec(arg)
                return ExportPass.placeholder(self, name, arg, meta)

            def call_operator(self, op, args, kwargs, meta):
                a, k = pytree.tree_map_only(ProxyValue, lambda v: v.data, (args, kwargs))
                meta["spec"] = pytree.tree_map(make_spec, op(*a, **k))  # trace 1 -> spec
                return super(SpecPropPass, self).call_operator(op, args, kwargs, meta)  # trace 2

            def call_getitem(self, value, key, meta):
                meta["spec"] = value.node.meta["spec"][key]
                return ExportPass.call_getitem(self, value, key, meta)

            def output(self, results, meta):
                meta["spec"] = pytree.tree_map(
                    lambda v: v.node.meta["spec"] if isinstance(v, ProxyValue) else make_spec(v),
                    results,
                )
                return ExportPass.output(self, results, meta)

        return _Pass()


@pytest.fixture
def prefix_specprop(monkeypatch):
    """Run to_executorch with the pre-fix SpecPropPass."""
    import executorch.exir.program._program as P

    monkeypatch.setattr(P, "SpecPropPass", type(DoubleTraceSpecPropPass()))


# ---------------------------------------------------------------------------------------
# exir.spec-meta


def test_spec_meta_silent_on_stock_pipeline(head_build):
    assert head_build.probe.records
    assert exir_plan.check_spec_meta(head_build.probe.records) == []


def test_spec_meta_fires_on_double_traced_specprop(prefix_specprop):
    b = build(positive_head_10, (X,), DIMS)
    divs = exir_plan.check_spec_meta(b.probe.records)
    assert divs and kinds(divs) == {"exir.spec-meta"}
    bad = divs[0].data
    assert bad["spec_shape"] != bad["val_shape"] and bad["spec_shape"][0].startswith("u")


def test_spec_meta_fires_on_corrupted_spec_shape(head_build):
    records = copy.deepcopy(head_build.probe.records)
    victim = next(r for r in records if r.spec_shape and r.spec_shape[0].startswith("u"))
    victim.spec_shape = ["u999"]
    divs = exir_plan.check_spec_meta(records)
    assert [d.data["node"] for d in divs] == [victim.where]


# ---------------------------------------------------------------------------------------
# exir.bound-loss


def test_custom_op_plans_exactly_its_bound(head_build):
    """positive_head(x, 10): fake kernel size u with torch._check(u <= 10) -> 10 elements."""
    planned = map_planned(head_build.planned_gm, head_build.ep.graph_module)
    head = [p for p in planned if p.target == "fuzz::positive_head"]
    assert len(head) == 1 and list(head[0].spec.shape) == [10]
    assert head[0].spec.allocated_memory == 48  # 40 bytes, 16-byte aligned
    divs, table = exir_plan.check_bounds(planned, head_build.ep)
    assert divs == []
    row = next(r for r in table if r["node"] == head[0].where)
    assert row["planned"] == row["needed"] == 10


def test_bound_loss_fires_on_double_traced_specprop(prefix_specprop):
    # The user's torch._check(len <= 5) bounds the op's second-trace symbol only; the
    # spec keeps the first trace's symbol, bounded by the fake kernel's numel (2*8 = 16).
    b = build(positive_checked, (X,), {0: {0: (2, 2)}})
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    divs, table = exir_plan.check_bounds(planned, b.ep, snapshot_bounds=b.probe.bounds)
    assert kinds(divs) == {"exir.bound-loss"}
    assert {d.data["needed"] for d in divs} == {5} and all(d.data["planned"] > 5 for d in divs)


def test_bound_loss_silent_on_stock_user_check():
    b = build(positive_checked, (X,), {0: {0: (2, 2)}})
    divs, table = exir_plan.check_bounds(map_planned(b.planned_gm, b.ep.graph_module), b.ep)
    assert divs == []
    assert any(r["planned"] == r["needed"] == 5 for r in table)


def test_bound_loss_fires_on_inflated_and_unbounded_specs(fresh_head):
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    b = fresh_head
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    head = next(p for p in planned if p.target == "fuzz::positive_head")
    head.spec.shape = [11]  # one element above the declared bound, factor 1.0
    divs, _ = exir_plan.check_bounds(planned, b.ep)
    assert [d.data["planned"] for d in divs if d.data["node"] == head.where] == [11]
    assert exir_plan.check_bounds(planned, b.ep, factor=lambda pt: 1.1)[0] == []
    # A spec left with an unbacked symbol of no range (planning would find int_oo).
    head.spec.shape = [ShapeEnv().create_unbacked_symint()]
    divs, _ = exir_plan.check_bounds(planned, b.ep)
    assert [d.data["planned"] for d in divs if d.data["node"] == head.where] == [None]
    assert "unbounded" in divs[0].details


def split_then_cat(x):
    pos, neg = torch.ops.fuzz.split_sign(x)
    return (torch.cat([pos, neg]).neg(),)


def test_a_lost_bound_is_reported_where_it_is_lost_not_downstream():
    """split_sign of one element: each part is bounded by 1 and planned as 2 (the
    registered executorch_unbacked_bound_one_planned_two). The cat of the parts and the
    neg of the cat lose as much (4 for 2): they are inherited rows, not divergences (a
    nightly shrank three such downstream buckets for 38 % of its worker time)."""
    b = build(split_then_cat, (torch.randn(1),), {})
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    divs, table = exir_plan.check_bounds(planned, b.ep)
    assert {d.data["aten"] for d in divs} == {"split_sign"}
    assert {(d.data["planned"], d.data["needed"]) for d in divs} == {(2, 1)}
    assert all(d.data["downstream"] == 2 for d in divs)
    inherited = {r["aten"]: (r["planned"], r["needed"]) for r in table if r.get("inherited")}
    assert inherited == {"cat": (4, 2), "neg": (4, 2)}
    # A node that loses more than its inputs did is an origin of its own.
    cat = next(p for p in planned if p.aten_node == "cat")
    cat.spec.shape = [9]
    divs, _ = exir_plan.check_bounds(planned, b.ep)
    assert {d.data["aten"] for d in divs} == {"split_sign", "cat"}


def positive_of_tail(x):
    return (torch.ops.fuzz.positive(x[:, 1:]),)


def test_a_bound_lost_to_torchs_multiplied_out_interval_is_marked_and_no_more():
    """positive(x[:, 1:]) with x in [2, 3] x [2, 5]: the bound is 3 * 4 = 12, torch's
    ShapeEnv multiplies it out (s0*s1 - s0) and plans 15 - 2 = 13 (the registered
    torch_value_ranges_expanded_bound). The loss is marked as that slack; a plan above
    the multiplied-out bound is not (a real loss must not hide behind the mark)."""
    b = build(positive_of_tail, (torch.randn(2, 4),), {0: {0: (0, 3), 1: (2, 5)}})
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    divs, _ = exir_plan.check_bounds(planned, b.ep)
    assert [(d.data["planned"], d.data["needed"]) for d in divs] == [(13, 12)]
    assert divs[0].data["slack"] == "expanded-interval"
    assert divs[0].data["needed_expanded"] == 13
    positive = next(p for p in planned if p.target == "fuzz::positive")
    positive.spec.shape = [14]
    divs, _ = exir_plan.check_bounds(planned, b.ep)
    assert [d.data["planned"] for d in divs] == [14] and "slack" not in divs[0].data


# ---------------------------------------------------------------------------------------
# exir.under-allocation


def test_under_allocation_silent_then_fires_when_a_spec_shrinks(fresh_head):
    b = fresh_head
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    values = interpret(b.ep, (X,))  # 13 positive entries: positive_head returns 10
    divs, stats = exir_plan.check_under_allocation(planned, values, "call[0]")
    assert divs == [] and stats["checked"] >= 3
    head = next(p for p in planned if p.target == "fuzz::positive_head")
    head.spec.shape = [4]  # the plan now holds 4 elements (16 bytes) of the 10 eager makes
    divs, _ = exir_plan.check_under_allocation(planned, values, "call[0]")
    assert [d.data["node"] for d in divs] == [head.where]
    assert divs[0].data["actual_bytes"] == 40 and divs[0].data["planned_bytes"] == 16


def test_under_allocation_maps_cond_branches():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: (x * 2).sin(), lambda x: x.cos() + 1, (x,))

    b = build(program, (X,), DIMS)
    planned = map_planned(b.planned_gm, b.ep.graph_module)
    assert any(p.path and p.how == "op" for p in planned)  # branch nodes are mapped
    sub = next(
        p
        for p in planned
        if p.path and p.how == "op" and p.spec.mem_offset is not None and p.target == "aten::sin"
    )
    values = interpret(b.ep, (X,))  # sum > 0: the true branch runs
    assert exir_plan.check_under_allocation(planned, values, "call[0]")[0] == []
    sub.spec.shape = [1, 1]
    divs, _ = exir_plan.check_under_allocation(planned, values, "call[0]")
    assert [d.data["node"] for d in divs] == [sub.where]


# ---------------------------------------------------------------------------------------
# exir.overlap


def cond_program(x):
    y = x.sum(0)
    return torch.cond(x.sum() > 0, lambda x: (x * 2).sin(), lambda x: x.cos() + 1, (x,)), y * 3


@pytest.fixture(scope="module")
def cond_build():
    return build(cond_program, (X,), DIMS)


@pytest.fixture
def fresh_cond():
    return build(cond_program, (X,), DIMS)


@pytest.mark.parametrize("algo", ["greedy", "naive"])
def test_overlap_silent_on_stock_plans(cond_build, algo):
    et = cond_build.et if algo == "greedy" else to_executorch(cond_build.edge, algo)
    prog = et.exported_program()
    assert exir_overlap.check_overlap(prog.graph_module, prog.graph_signature, algo) == []


def test_overlap_fires_when_two_live_tensors_share_bytes(fresh_cond):
    prog = fresh_cond.et.exported_program()
    specs = exir_overlap._planned_specs(prog.graph_module)
    live = [(n, s) for n, s in specs if not s.const]
    (na, a), (nb, b) = next(
        (
            (p, q)
            for i, p in enumerate(live)
            for q in live[i + 1 :]
            if exir_overlap._ivl_overlap(exir_overlap._lifetime(p[1]), exir_overlap._lifetime(q[1]))
            and storage_root(p[1]) is not storage_root(q[1])
        )
    )
    b.mem_offset = a.mem_offset
    divs = exir_overlap.check_overlap(prog.graph_module, prog.graph_signature, "greedy")
    assert kinds(divs) == {"exir.overlap"}
    msgs = " ".join(d.details for d in divs)
    assert "Verifier.verify_storage_reuse" in msgs  # ExecuTorch's own check
    assert f"{na} and {nb}" in msgs or f"{nb} and {na}" in msgs  # and ours


def test_overlap_fires_when_a_live_tensor_enters_the_submodule_arena(fresh_cond):
    """Control-flow submodules own the start of the arena; a parent tensor live across
    the cond node may not sit there (the Verifier only sees one level: ours only)."""
    prog = fresh_cond.et.exported_program()
    gm = prog.graph_module
    cond_idx = next(
        i for i, n in enumerate(gm.graph.nodes) if n.target is torch.ops.higher_order.cond
    )
    name, spec = next(
        (n, s)
        for n, s in exir_overlap._planned_specs(gm)
        if s.lifetime[0] <= cond_idx <= s.lifetime[1]
    )
    assert exir_overlap.own_overlap_check(gm) == []
    spec.mem_offset = 0
    problems = exir_overlap.own_overlap_check(gm)
    assert any("control-flow" in p.get("why", "") and p["a"] == name for p in problems)


def list_operand_program(x):
    a = x * 2.0
    b = x + 1.0
    return (torch.cat([a, b]) * 3.0,)


def mutating_program(x):
    x.add_(1.0)
    return (x * 2.0,)


@pytest.mark.parametrize("program", [cond_program, list_operand_program, mutating_program])
def test_harness_lifetimes_agree_with_the_stock_planner(program):
    """On stock ExecuTorch every planner lifetime covers the uses the harness counts:
    through list operands (cat), cond operands, a mutated input's write-back and the
    returned tuple. (A disagreement here would be a false `lifetime-short`.)"""
    et = build(program, (X.clone(),), DIMS).et
    prog = et.exported_program()
    assert exir_overlap.short_lifetimes(prog.graph_module, prog.graph_signature) == []
    assert exir_overlap.own_overlap_check(prog.graph_module, prog.graph_signature) == []


def test_a_planner_lifetime_ending_early_is_short_and_its_reused_bytes_overlap():
    """The liveness fault the planner's own lifetimes hide (tests/faults/
    planner_list_operand_lifetime.py): `a`'s last use is inside cat's list operand. End
    its planned life at the node that makes it and give its bytes to cat's output: by
    spec.lifetime (what ExecuTorch's Verifier reads) nothing overlaps; by the lifetimes
    the harness computes, `a` and cat's output share bytes while both live."""
    prog = build(list_operand_program, (X.clone(),), DIMS).et.exported_program()
    gm, signature = prog.graph_module, prog.graph_signature
    nodes = list(gm.graph.nodes)
    cat = next(n for n in nodes if "cat" in str(n.target))
    (a_node, *_) = cat.args[0]
    a = a_node.meta["spec"]
    out = cat.meta["spec"]
    made = nodes.index(a_node)
    a.lifetime = [a.lifetime[0], made]  # ends before cat reads it
    out.mem_id, out.mem_offset, out.mem_obj_id = a.mem_id, a.mem_offset, a.mem_obj_id
    # By the planner's own lifetimes the two never live at once: nothing to see there.
    assert not exir_overlap._ivl_overlap(exir_overlap._lifetime(a), exir_overlap._lifetime(out))
    # A planned tensor is named by the first node that holds its spec (its alloc).
    (holder,) = [n.name for n in nodes if n.meta.get("spec") is a][:1]
    short = exir_overlap.short_lifetimes(gm, signature)
    assert short == [
        f"{holder}: planned [{a.lifetime[0]}, {made}], used [{a.lifetime[0]}, {nodes.index(cat)}]"
    ]
    problems = exir_overlap.own_overlap_check(gm, signature)
    assert any(
        holder in (p["a"], p.get("b")) and "before its last use" in p.get("why", "")
        for p in problems
    ), problems


# ---------------------------------------------------------------------------------------
# exir.aliasing


def alias_program(x):
    x.add_(1)
    a, b = torch.ops.fuzz.split_sign(x)
    return x.view(-1) * 2, a, b.sum()


@pytest.fixture(scope="module")
def alias_build():
    return build(alias_program, (X.clone(),), DIMS)


def test_alias_structure_silent_on_stock_plan(alias_build):
    divs, notes = exir_aliasing.check_alias_structure(alias_build.planned_gm)
    assert divs == []
    assert notes["stale-output-spec"] == 1  # the x.add_ write-back output (harmless, noted)


def test_alias_structure_fires_when_getitem_is_planned_apart(alias_build):
    b = copy.deepcopy(alias_build)  # node.meta dicts are copied: replacing an entry is local
    getitem = find_node(b.planned_gm, lambda n: n.name == "getitem")
    getitem.meta["spec"] = copy.copy(getitem.meta["spec"])  # S1: its own buffer
    divs, _ = exir_aliasing.check_alias_structure(b.planned_gm)
    assert any(d.data["rule"] == "S1 getitem" for d in divs)


def test_alias_structure_fires_on_unexplained_sharing(alias_build):
    b = copy.deepcopy(alias_build)
    gm = b.planned_gm
    x = find_node(gm, lambda n: n.name == "x")
    mul = find_node(gm, lambda n: n.name == "aten_mul_tensor")
    alloc = mul.kwargs["out"]
    mul.meta["spec"] = alloc.meta["spec"] = x.meta["spec"]  # the output computed into x
    divs, _ = exir_aliasing.check_alias_structure(gm)
    assert any(d.data["rule"].startswith("S5") for d in divs)


def test_alias_boundary(alias_build):
    case = case_from_source(
        "import torch\nimport fuzz.custom_ops\n"
        "def program(x):\n    x.add_(1)\n    a, b = torch.ops.fuzz.split_sign(x)\n"
        "    return x.view(-1) * 2, a, b.sum()\n"
        "def calls():\n    return [(torch.randn(2, 8),)]\n",
        "alias",
    )
    calls = materialize(case)
    ref = run_eager(case, calls)
    facts = exir_aliasing.boundary_facts(alias_build.et_program)
    assert facts["mutated"] == {0}
    assert exir_aliasing.check_alias_boundary(facts, ref[0], calls[0], "call[0]")[0] == []
    # E4: the program lost the mutation eager made.
    lost = dict(facts, mutated=set())
    divs, _ = exir_aliasing.check_alias_boundary(lost, ref[0], calls[0], "call[0]")
    assert [d.data["rule"] for d in divs] == ["E4"]
    # E2: output 0 planned in input 0's storage, eager's output 0 is a fresh tensor.
    into_input = dict(facts, out_roots={**facts["out_roots"], 0: facts["in_roots"][0]})
    divs, _ = exir_aliasing.check_alias_boundary(into_input, ref[0], calls[0], "call[0]")
    assert [d.data["rule"] for d in divs] == ["E2"]
    # E3: two outputs in one storage, eager's are distinct.
    merged = dict(facts, out_roots={**facts["out_roots"], 1: facts["out_roots"][0]})
    divs, _ = exir_aliasing.check_alias_boundary(merged, ref[0], calls[0], "call[0]")
    assert [d.data["rule"] for d in divs] == ["E3"]


def test_alias_boundary_eager_view_output_returned_as_copy_is_legal():
    def program(x):
        return x.view(-1), x.t()

    b = build(program, (X,), DIMS)
    case = case_from_source(
        "import torch\ndef program(x):\n    return x.view(-1), x.t()\n"
        "def calls():\n    return [(torch.randn(3, 8),)]\n",
        "views",
    )
    calls = materialize(case)
    ref = run_eager(case, calls)
    divs, legal = exir_aliasing.check_alias_boundary(
        exir_aliasing.boundary_facts(b.et_program), ref[0], calls[0], "call[0]"
    )
    assert divs == [] and legal["E1-copy-of-eager-alias"] == 2


# ---------------------------------------------------------------------------------------
# exir.runtime-result, exir.unchecked-contract, exir.crash (through the lane)

SCALE = """
import torch
def program(x, y):
    return x * 2 + y
def calls():
    return [(torch.randn(3, 4), torch.randn(4)), (torch.randn(5, 4), torch.randn(4))]
"""


def lane_run(src, lane=None, tweak=None):
    lane = lane or ExirLane(strict=True)
    case = case_from_source(src, "t")
    calls = materialize(case)
    ref = run_eager(case, calls)
    if tweak is None:
        return lane.run(case, calls, ref, "cpu")
    host = [tuple(c) for c in calls]
    b = build(case.program, host[0], derive_dims(case, host))
    tweak(b)
    report = LaneReport("exir", "cpu")
    fed, eager, _ = lane_reference(case.program, host, ref)
    lane.check_build(b, Calls(host, fed, ref, eager), "cpu", report)
    return report


def test_runtime_result_silent_then_fires_on_a_miscompiled_program():
    assert lane_run(SCALE).divergences == []

    def miscompile(b):  # the .pte of a different program: x * 3 + y
        other = build(lambda x, y: x * 3 + y, (torch.randn(3, 4), torch.randn(4)), {0: {0: (3, 5)}})
        b.buffer = other.buffer

    report = lane_run(SCALE, tweak=miscompile)
    assert kinds(report.divergences) == {"exir.runtime-result"}
    assert {d.stage for d in report.divergences} == {"call[0]", "call[1]"}


BRANCH = """
import torch
def program(x):
    if x.shape[0] > 3:
        return x.sum(0)
    return x * 2
def calls():
    return [(torch.randn(5, 3),), (torch.randn(7, 3),)]
"""


def test_unchecked_contract_upper_probe_is_rejected():
    report = lane_run(BRANCH)
    assert report.divergences == []
    probes = {p["kind"]: p for p in report.details["contract_probes"]}
    assert probes["upper"]["accepted"] is False  # s=8 > max 7: rejected at set_inputs


def test_unchecked_contract_fires_when_the_runtime_accepts_a_probe():
    # The runtime never checks lower bounds: x of 3 rows (min is 4, the branch export
    # took) runs the x.shape[0] > 3 branch. Off by default; on here.
    report = lane_run(BRANCH, ExirLane(strict=True, check_lower_bounds=True))
    assert kinds(report.divergences) == {"exir.unchecked-contract"}
    assert report.divergences[0].data["kind"] == "lower"


def test_crash_when_a_stage_raises(monkeypatch):
    import fuzz.backends.exir.pipeline as pipeline

    def boom(edge, algo="greedy", probe=None):
        raise RuntimeError("emitter exploded")

    monkeypatch.setattr(pipeline, "to_executorch", boom)
    report = lane_run(SCALE)
    assert [(d.kind, d.stage) for d in report.divergences] == [("exir.crash", "to_executorch")]


# ---------------------------------------------------------------------------------------
# exir.pipeline-variance


def test_pipeline_mirror_matches_to_executorch(head_build):
    base = exir_variance.plan_fingerprint(head_build.planned_gm)
    assert exir_variance.plan_fingerprint(mirror_to_executorch(head_build.edge)) == base


def test_pipeline_variance_silent_when_bounds_live_in_the_fake_kernel(head_build):
    base = exir_variance.plan_fingerprint(head_build.planned_gm)
    for point in ("repeat", "after-asserts", "before-planning"):
        other = exir_variance.plan_fingerprint(mirror_to_executorch(head_build.edge, point))
        assert exir_variance.compare_plans(base, other, point) == []


def test_pipeline_variance_fires_when_specprop_reruns_after_asserts_are_gone():
    """positive(x) with the user's torch._check(len <= 5): the bound lives only in the
    graph's _assert_scalar nodes. Re-tracing after RemoveGraphAssertsPass makes a fresh
    unbacked symbol bounded by the fake kernel (numel = 16): the plan grows."""
    b = build(positive_checked, (X,), {0: {0: (2, 2)}})
    base = exir_variance.plan_fingerprint(b.planned_gm)
    assert (
        exir_variance.compare_plans(
            base, exir_variance.plan_fingerprint(mirror_to_executorch(b.edge, "repeat")), "repeat"
        )
        == []
    )
    divs = exir_variance.compare_plans(
        base,
        exir_variance.plan_fingerprint(mirror_to_executorch(b.edge, "after-asserts")),
        "after-asserts",
    )
    assert kinds(divs) == {"exir.pipeline-variance"}
    assert any(
        c["plan"] and c["plan"][0] == "(5,)" and c["variant"][0] == "(16,)"
        for c in divs[0].data["changed"]
    )


def dead_then_live_masked_select(x0, x2):
    torch.masked_select(x0, x0 > 0)  # dead: removed before planning, names keep `_1`
    return (torch.masked_select(x2, x2 > 0),)


def test_nodes_renamed_by_a_retrace_are_the_same_plan():
    """The dead masked_select is gone by planning, but the planned graph still names the
    live one `aten_masked_select_default_1` (and its mask `aten_gt_scalar_1`); the
    SpecPropPass re-trace names them anew without the suffix. Same bytes at the same
    offsets: no variance. A real change in that renamed tensor's plan still fires."""
    b = build(
        dead_then_live_masked_select,
        (torch.randn(3), torch.randn(3)),
        {0: {0: (3, 6)}, 1: {0: (1, 6)}},
    )
    assert any(n.name == "aten_gt_scalar_1" for n in b.planned_gm.graph.nodes)
    base = exir_variance.plan_fingerprint(b.planned_gm)
    renamed = []
    for point in ("repeat", "after-asserts", "before-planning"):
        variant = mirror_to_executorch(b.edge, point)
        if not any(n.name == "aten_gt_scalar_1" for n in variant.graph.nodes):
            renamed.append(point)
        other = exir_variance.plan_fingerprint(variant)
        assert exir_variance.compare_plans(base, other, point) == []
    assert renamed == ["after-asserts", "before-planning"]
    row = next(i for i, r in enumerate(other) if r[:2] == ("", "aten_masked_select_default"))
    shape, dtype, mem_id, offset, size = other[row][2]
    other[row] = other[row][:2] + ((shape, dtype, mem_id, offset, size - 16),)
    divs = exir_variance.compare_plans(base, other, "before-planning")
    assert kinds(divs) == {"exir.pipeline-variance"}
    assert divs[0].data["changed"] == [
        {
            "at": "aten_masked_select_default",
            "plan": list(map(str, base[row][2])),
            "variant": list(map(str, other[row][2])),
        }
    ]


def cond_on_size(x):
    return (torch.cond(x.shape[0] > 2, lambda x: x * 2.0, lambda x: -x, (x,)),)


def test_variance_runs_leave_the_shared_shape_env_alone():
    """Re-running SpecPropPass after EdgeToBackendOpsPass guards `s <= 2` on the example
    (corpus/executorch_prim_compare_specializes.py) in the ShapeEnv that every copy of
    the program shares. Each variance run is isolated: the pristine program keeps its
    symbolic input, later points see the same fresh state, and a re-run reproduces."""
    b = build(cond_on_size, (torch.randn(2),), {0: {0: (2, 4)}})
    base = exir_variance.plan_fingerprint(b.planned_gm)
    x = find_node(b.ep.graph_module, lambda n: n.op == "placeholder")
    for _ in range(2):
        for point in ("after-asserts", "before-planning"):
            divs = exir_variance.compare_plans(
                base, exir_variance.plan_fingerprint(mirror_to_executorch(b.edge, point)), point
            )
            assert kinds(divs) == {"exir.pipeline-variance"}
            assert {
                "at": "x",
                "plan": ["(4,)", "torch.float32", "1", "32", "16"],
                "variant": ["(2,)", "torch.float32", "1", "32", "16"],
            } in divs[0].data["changed"]
            assert isinstance(x.meta["val"].shape[0], torch.SymInt)
            assert str(b.ep.range_constraints[x.meta["val"].shape[0].node.expr]) == "VR[2, 4]"
    assert exir_variance.plan_fingerprint(b.planned_gm) == base
    report = lane_run("""
import torch
def program(x):
    return (torch.cond(x.shape[0] > 2, lambda x: x * 2.0, lambda x: -x, (x,)),)
def calls():
    return [(torch.randn(2),), (torch.randn(4),), (torch.randn(3),)]
""")
    assert report.counters["calls-checked"] == 3 and report.counters["call-outside-contract"] == 0
    assert {d.stage for d in report.divergences} == {
        "pipeline-variance[after-asserts]",
        "pipeline-variance[before-planning]",
    }


def test_outside_contract_includes_export_guards():
    def branchy(x):
        return x.abs() if tuple(x.shape) == (3,) else x * x

    b = build(branchy, (torch.randn(4),), {0: {0: (3, 5)}})
    assert outside_contract(b.ep, (torch.randn(4),)) is None
    assert outside_contract(b.ep, (torch.randn(3),)) == "fails the export guard x.size()[0] != 3"
    assert "outside" in outside_contract(b.ep, (torch.randn(6),))
    (guard,) = [p for p in contract_probes(b.ep, (torch.randn(4),)) if p.kind == "guard"]
    assert guard.args[0].shape == (3,)


EMPTY_SLICE = """import torch

def program(x0, n):
    return (x0[:n], x0 + x0)

def calls():
    return [({x}, {n})]
"""


def _boundary(x: str, n: int):
    case = case_from_source(EMPTY_SLICE.format(x=x, n=n), "empty_slice")
    calls = materialize(case)
    reference = run_eager(case, calls)
    b = build(case.program, calls[0], {})
    return exir_aliasing.boundary_facts(b.et_program), reference[0], calls[0]


def test_alias_boundary_is_silent_on_outputs_that_hold_no_bytes_and_fires_otherwise():
    # Export fixes an empty x0's size at 0, so x0[:0] is a no-op slice that ExecuTorch
    # removes: output 0 is planned in input 0's storage. An empty tensor holds no bytes, so
    # neither E2 nor E3 has anything to judge (found as a false alarm by a fixes-on campaign).
    facts, ref, call = _boundary("torch.zeros(0, dtype=torch.bool)", 0)
    assert facts["out_roots"][0] == facts["in_roots"][0]
    found, _ = exir_aliasing.check_alias_boundary(facts, ref, call, "call[0]")
    assert found == []
    shared = dict(facts, out_roots={0: facts["out_roots"][0], 1: facts["out_roots"][0]})
    found, _ = exir_aliasing.check_alias_boundary(shared, ref, call, "call[0]")
    assert [d.data["rule"] for d in found if d.data["rule"] == "E3"] == []
    # A fresh non-empty output (x0 + x0) planned in the input's storage still fires E2 and,
    # sharing with output 0 (a view of that input), E3.
    facts, ref, call = _boundary("torch.ones(3)", 5)
    found, _ = exir_aliasing.check_alias_boundary(facts, ref, call, "call[0]")
    assert found == []
    bad = dict(facts, out_roots={**facts["out_roots"], 1: facts["in_roots"][0]})
    found, _ = exir_aliasing.check_alias_boundary(bad, ref, call, "call[0]")
    assert sorted(d.data["rule"] for d in found) == ["E2", "E3"]


def test_a_runtime_result_as_imprecise_as_eager_is_counted_not_reported():
    """The EXIR baseline's false alarm (fault benchmark, 2026-12-02): float16
    `x + logsumexp(2 * x, 0)` on the runtime (the decomposed logsumexp, its sum added in
    float16) differs from eager past the float16 tolerance, by cancellation, yet no more
    than eager differs from float64: counted as within-eager-error, not a divergence. The
    registered float16 cumsum stays one (corpus/executorch_cumsum_half_accumulator.py)."""
    from fuzz.case import case_from_source
    from fuzz.case_runner import run_case

    source = (
        "import torch\n\n\ndef program(x):\n    return (x + torch.logsumexp(2 * x, 0),)\n\n\n"
        "def calls():\n"
        "    return [(torch.randn((5, 7, 4), dtype=torch.float16).transpose(-2, -1),)]\n"
    )
    result = run_case(case_from_source(source, "lse_cancel"), ["exir"], ["cpu"], seed=0)
    (report,) = result.reports
    assert report.divergences == [] and report.counters["within-eager-error"] >= 1, report
    cumsum = (
        "import torch\n\n\ndef program(x):\n    return (torch.cumsum(x, 0),)\n\n\n"
        "def calls():\n    return [(torch.ones(3000, dtype=torch.float16),)]\n"
    )
    (report,) = run_case(case_from_source(cumsum, "cumsum_half"), ["exir"], ["cpu"]).reports
    assert [d.kind for d in report.divergences] == ["exir.runtime-result"]
    assert report.counters["within-eager-error"] == 0


def test_a_planned_view_over_more_bytes_than_its_base_is_noted():
    """views_exceeding_base (fact `plan`): a view bounded dim by dim past its base's numel
    (corpus/executorch_view_bound_exceeds_base.py) is noted; an ordinary view is not."""

    def unflattened(x, n):
        return (x.unflatten(0, (n.shape[0], x.shape[0] // n.shape[0])) * 2.0,)

    def reshaped(x, n):
        return (x.reshape(-1, 2) * 2.0, n + 1)

    dims = {0: {0: (2, 7)}, 1: {0: (2, 7)}}
    b = build(unflattened, (torch.randn(2), torch.randn(2)), dims)
    [noted] = exir_overlap.views_exceeding_base(b.planned_gm)
    assert noted.startswith("aten_view_copy_default (96 bytes) over its base's 32")
    b = build(reshaped, (torch.randn(4), torch.randn(3)), {0: {0: (2, 8)}, 1: {0: (2, 7)}})
    assert exir_overlap.views_exceeding_base(b.planned_gm) == []
