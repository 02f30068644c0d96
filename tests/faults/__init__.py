"""Our own fault-injection benchmark (issue #17, item 7): plugins that each inject ONE
realistic compiler bug into a stack under test, to measure whether the nightly campaign
finds it (benchmarks/fault_bench.py) and a hand-written case per fault that proves it is
live (tests/stacks/campaign/test_fault_plugins.py).

Each module, imported (`python -m fuzz nightly|replay --plugin tests.faults.NAME`,
or `python -m fuzz.outcome CASE LANE cpu --plugin ...`), installs its fault at import
time by exact, reversible monkeypatching: its `PATCHES` is a `fixes._patching.PatchSet`
of kind "fault" (`fault`, the mechanism of the fixes and the speedups), gated on the
versions of the stack it breaks that the fault was checked on (the tox lanes); an
installed fault is recorded with the other patch sets (fuzz.speedups.compat_state:
report.json, case files), and `uninstall()` puts back exactly what it replaced.
Faults go into the stacks under test (ExecuTorch EXIR, torch.export's
decompositions, Thunder) or into our fixed Thunder cache (`fixes/thunder_symbolic_cache`),
never into the harness (`fuzz/`). None is keyed on a harness name: each is a corner-case
bug a compiler engineer could plausibly write (see each module's docstring).

`FAULTS`: name -> (module, lane, what it breaks, where the fault is).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fixes._patching import Part, Patch, PatchSet

# The versions each fault was checked on (tox.ini's main and legacy lanes).
EXECUTORCH = {"executorch": ">=1.0.1"}
TORCH = {"torch": ">=2.9.1"}
THUNDER = {"lightning-thunder": "==0.2.6"}  # the Thunder faults and those in our fixed cache


def fault(module: str, table: Callable[[], list[Patch]], versions: Mapping[str, str]) -> PatchSet:
    """The patch set of the fault plugin `module` (kind "fault", named after the module):
    one part, `table()`, installed where `versions` hold."""
    name = module.rsplit(".", 1)[-1]
    return PatchSet(f"fault:{name}", "fault", [Part(name, table, versions=versions)])


FAULTS: dict[str, tuple[str, str, str, str]] = {
    "planner_overlap": (
        "tests.faults.planner_overlap",
        "exir",
        "greedy planner places a tensor at the inclusive end (offset + size - 1) of a live "
        "one: two live tensors share a byte",
        "executorch/exir/memory_planning.py: _find_max_overlapping_allocations_offset",
    ),
    "bound_exclusive": (
        "tests.faults.bound_exclusive",
        "exir",
        "a symbolic size's planned upper bound is one short (inclusive range read as exclusive)",
        "executorch/exir/passes/sym_shape_eval_pass.py: eval_upper_bound",
    ),
    "specprop_binary_shortcut": (
        "tests.faults.specprop_binary_shortcut",
        "exir",
        "SpecPropPass gives add/sub/mul/maximum/minimum their first operand's spec "
        "(broadcasting forgotten)",
        "executorch/exir/passes/spec_prop_pass.py: SpecPropPass.__call__",
    ),
    "promotion_zero_dim": (
        "tests.faults.promotion_zero_dim",
        "exir",
        "mixed-type promotion ignores 0-dim operands (numbers) next to a dimensioned "
        "tensor: int * 0.5 stays int",
        "executorch/exir/passes/remove_mixed_type_operators.py: elementwise_dtypes",
    ),
    "cond_jump": (
        "tests.faults.cond_jump",
        "exir",
        "torch.cond's JumpFalse lands one instruction short: a false predicate skips both branches",
        "executorch/exir/emit/_emitter.py: _Emitter._emit_cond",
    ),
    "export_transpose_size1": (
        "tests.faults.export_transpose_size1",
        "exir",
        "the transpose decomposition returns an alias (shape not swapped) when a "
        "swapped dim is statically 1",
        "torch/_decomp decomposition_table[aten.transpose.int] (torch._refs.transpose)",
    ),
    "xnnpack_sub_swapped": (
        "tests.faults.xnnpack_sub_swapped",
        "xnnpack",
        "the XNNPACK delegate serializes sub's operands crossed: a delegated a - b runs as b - a",
        "executorch/backends/xnnpack/operators/op_sub.py: SubVisitor.define_node",
    ),
    "dynamo_lower_bound_guard": (
        "tests.faults.dynamo_lower_bound_guard",
        "thunderfx",
        "Dynamo's shape guards lose each size's lower bound: a graph compiled for larger "
        "sizes (or sizes >= 2) serves a smaller call",
        "torch/fx/experimental/symbolic_shapes.py: ShapeEnv.produce_guards_verbose",
    ),
    "recorder_forget_eq": (
        "tests.faults.recorder_forget_eq",
        "thunder",
        "the fixed symbolic cache does not log ==/!= decisions: a stale trace is served",
        "fixes/thunder_symbolic_cache/recorder.py: Recorder.decide, Recorder.derive",
    ),
    "prologue_number_type": (
        "tests.faults.prologue_number_type",
        "thunder",
        "the fixed cache's prologue drops the type(n) checks of number inputs: 3.0 hits "
        "a trace of 3",
        "fixes/thunder_symbolic_cache/prologue.py: generate",
    ),
    "thunder_keepdim_size1": (
        "tests.faults.thunder_keepdim_size1",
        "thunder",
        "reductions over size-1 dims keep the dim even with keepdim=False",
        "thunder/torch/__init__.py: _reduction",
    ),
    "thunder_broadcast_max": (
        "tests.faults.thunder_broadcast_max",
        "thunder",
        "the broadcast size of a dim is max(sizes): 0 against 1 gives 1 (crash on empty "
        "broadcasts)",
        "thunder/clang/utils.py: compute_broadcast_shape",
    ),
    "export_floordiv_trunc": (
        "tests.faults.export_floordiv_trunc",
        "exir",
        "the floor_divide decomposition rounds toward zero (pre-1.13 semantics): -7 // 2 is -3",
        "torch/_decomp decomposition_table[aten.floor_divide.default]",
    ),
    "thunder_flip_size1": (
        "tests.faults.thunder_flip_size1",
        "thunder",
        "the lowering of flip copies its input unchanged when any (not all) flipped dim has size 1",
        "thunder/executors/torchex.py: _flip_transform (the torch executor's lowering of flip)",
    ),
    "thunder_pad_low_high": (
        "tests.faults.thunder_pad_low_high",
        "thunderprims",
        "Thunder's core-language pad passes each dim's (low, high) padding pair to "
        "prims.pad swapped: uneven pads shift the values",
        "thunder/clang/__init__.py: pad (the decomposition of F.pad into prims.pad)",
    ),
    "logsumexp_squeeze_first": (
        "tests.faults.logsumexp_squeeze_first",
        "exir",
        "the logsumexp decomposition squeezes only the first of several reduced dims of the "
        "max (keepdim=False): the add broadcasts the result to a wrong shape",
        "torch/_decomp decomposition_table[aten.logsumexp.default] (torch._refs.logsumexp)",
    ),
    "planner_list_operand_lifetime": (
        "tests.faults.planner_list_operand_lifetime",
        "exir",
        "the planner's lifetime walk skips operands inside lists and tuples (cat, stack, "
        "cond operands, the returned tuple): such a tensor ends its life before its last "
        "use, and a later tensor gets its bytes",
        "executorch/exir/memory_planning.py: update_all_tensors_lifetime",
    ),
    "emitter_int_list_order": (
        "tests.faults.emitter_int_list_order",
        "exir",
        "the emitter boxes a size list's constants before its symbolic sizes: "
        "view(x, [s0, 3]) runs as view(x, [3, s0])",
        "executorch/exir/emit/_emitter.py: _Emitter._emit_int_list",
    ),
    "out_args_sorted": (
        "tests.faults.out_args_sorted",
        "exir",
        "a multi-output kernel gets its out buffers in name order (topk's values and "
        "indices swapped): the runtime kernel writes each output into the other's buffer",
        "executorch/exir/operator/convert.py: get_out_args_from_schema",
    ),
}
