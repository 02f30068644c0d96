"""Fix: ExecuTorch's SpecPropPass traces each operator twice (executorch < 1.1).

Cause
    `SpecPropPass` (exir/passes/spec_prop_pass.py) gives every node a `TensorSpec`, the
    object memory planning sizes and places. Up to executorch 1.0.x it did so per
    operator inside an `ExportPass` re-trace: `call_operator` ran the op once on the fake
    inputs to build the spec, then returned `super().call_operator(...)`, which runs the
    op a second time to build the new graph and its `meta["val"]`. For an op whose
    output size is data dependent, every run of its fake kernel allocates a fresh
    unbacked symbol, so the spec holds `u15` while the graph (and every guard the rest of
    the re-trace records, e.g. the `_assert_scalar`/`sym_constrain_range_for_size` nodes
    of a `torch._check` in the program) is about `u16`. The spec's symbol only has the
    range its own fake-kernel run gave it: the program's bounds never reach it. Then
    `ConstraintBasedSymShapeEvalPass` turns the spec's shape into an upper bound that is
    either the fake kernel's looser bound (over-allocation), or `int_oo` when the kernel
    states none (to_executorch raises "Cannot evaluate the shape upper bound").

Design (the one upstream adopted in 1.1)
    Re-trace the whole graph once with a plain `ExportPass` (which refreshes every
    `meta["val"]` and re-runs the shape asserts on the symbols that end up in the
    graph), then walk the resulting graph module and every nested graph module and
    build each spec from the node's own `meta["val"]`:
      * `output` and `operator.getitem` reuse their argument's spec object (not an equal
        copy): memory planning relies on that identity to give a tuple element, its
        getitem and the graph output one allocation;
      * `executorch_call_delegate` nodes keep a spec they already have (lowering sets it
        by hand; regenerating it would change its structure);
      * everything else, placeholders included, gets `make_spec(meta["val"])`.
    The per-node hooks of the old pass (`placeholder`, `call_operator`, `call_getitem`,
    `call_cond`, `call_while`, `call_map`, `call_delegate`, `output`, `on_attr`) are
    removed from the class, as upstream removed them. The class object itself is
    patched in place, so every module that imported `SpecPropPass` by name
    (`exir.program._program`, `exir.passes`, `exir.lowered_backend_module`, backends)
    and every `isinstance(p, SpecPropPass)` check sees the fixed pass.
    `update_placeholder_tensor_specs` is unchanged.

    The changes are one `fixes._patching.PatchSet` (`PATCHES`, kind "fix", gated on the
    executorch versions the fix covers, `VERSIONS`): the hooks deleted, `__call__`,
    `call` and the `MARKER` attribute set. `install()` applies it (idempotent; the
    applied entries are `installed_patches()`, for inspection); `uninstall()` puts the
    removed hooks and the original methods back (and removes what the class did not
    have).

Upstream: https://github.com/pytorch/executorch/pull/15485 (released in executorch 1.1.0).
"""

from __future__ import annotations

import operator

from packaging.version import Version

from fixes._patching import Part, Patch, PatchSet
from fixes._registry import Fix, register

# torch and ExecuTorch are imported inside the functions that use them: `import fixes`
# must not import either (the fix is only installed where executorch < 1.1 is present).

NAME = "executorch-specprop"

# The old per-node hooks that the fixed pass does not have (it re-traces with a plain
# ExportPass instead).
OLD_HOOKS = (
    "on_attr",
    "placeholder",
    "call_operator",
    "call_getitem",
    "call_cond",
    "call_while",
    "call_map",
    "call_delegate",
    "output",
)

MARKER = "_fuzz_specprop_backport"
VERSIONS = "<1.1"  # the executorch versions the fix covers (1.1 has it upstream)


def _spec_of(arg, make_spec):
    """The spec an `output`/`getitem` argument already carries (the same object)."""
    import torch

    if isinstance(arg, torch.fx.Node):
        return arg.meta.get("spec")
    return make_spec(arg)


def _assign_spec(node, make_spec, call_delegate) -> None:
    from torch.utils import _pytree as pytree

    val = node.meta.get("val")
    if node.op == "output":
        node.meta["spec"] = pytree.tree_map(lambda a: _spec_of(a, make_spec), node.args[0])
    elif node.op == "call_function" and node.target is operator.getitem:
        source, index = node.args[0], node.args[1]
        container = _spec_of(source, make_spec)
        if isinstance(container, (list, tuple)):
            node.meta["spec"] = container[index]
        else:  # not a tuple-of-specs source: fall back to the node's own value
            node.meta["spec"] = pytree.tree_map(make_spec, val)
    elif node.op == "call_function" and node.target is call_delegate:
        if "spec" not in node.meta:
            node.meta["spec"] = pytree.tree_map(make_spec, val)
    else:
        node.meta["spec"] = pytree.tree_map(make_spec, val)


def _table() -> list[Patch]:
    """The entries that make `SpecPropPass` the fixed pass, in place."""
    import torch
    from executorch.exir.delegate import executorch_call_delegate
    from executorch.exir.pass_base import ExportPass
    from executorch.exir.passes import spec_prop_pass
    from torch.fx.passes.infra.pass_base import PassResult

    cls = spec_prop_pass.SpecPropPass
    make_spec = spec_prop_pass.make_spec

    def __call__(self, graph_module: torch.fx.GraphModule) -> PassResult:
        # One re-trace; its meta["val"] is the single source of truth for the specs.
        result = ExportPass()(graph_module)
        assert result is not None
        for module in result.graph_module.modules():
            if isinstance(module, torch.fx.GraphModule):
                for node in module.graph.nodes:
                    _assign_spec(node, make_spec, executorch_call_delegate)
        return result

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        return self(graph_module)

    __call__.__qualname__ = f"{cls.__qualname__}.__call__"
    call.__qualname__ = f"{cls.__qualname__}.call"
    return [
        *(Patch.delete(cls, hook) for hook in OLD_HOOKS if hook in cls.__dict__),
        Patch.set(cls, "__call__", __call__),
        Patch.set(cls, "call", call),
        Patch.set(cls, MARKER, True),
    ]


PATCHES = PatchSet(NAME, "fix", [Part("backport", _table, versions={"executorch": VERSIONS})])
install = PATCHES.install  # idempotent
uninstall = PATCHES.uninstall  # restores `SpecPropPass` exactly (a no-op when not installed)
installed_patches = PATCHES.patches  # the applied entries (empty when not installed)


FIX = register(
    Fix(
        name=NAME,
        package="executorch",
        upstream="https://github.com/pytorch/executorch/pull/15485",
        summary=(
            "SpecPropPass traced each op twice, so the TensorSpec of a data-dependent op "
            "held a different unbacked symbol than meta['val'] and missed the program's "
            "bounds (loose plan or int_oo); re-trace once, then build specs from meta['val']"
        ),
        versions=VERSIONS,
        covers=lambda v: v < Version("1.1"),
        already_fixed=lambda v: v >= Version("1.1"),
        patches=PATCHES,
    )
)
