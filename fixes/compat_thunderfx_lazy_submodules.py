"""Compat: let ThunderFX (lightning-thunder 0.2.6) compile graphs on torch >= 2.13.

ThunderFX splits each Dynamo graph with `torch.fx.passes.split_module` and hands every
Thunder partition to `thunder.jit`. On torch 2.13 the partitions are lazy `GraphModule`s
(`_make_graph_module`): their Python code is generated on the first call, and that first
call is Thunder's interpreter tracing `forward`. The interpreter then runs FX's code
generator, which calls `format(*(generator))`, and Thunder's handler of that call raises
"object of type 'generator' has no len()" (a registered Thunder bug:
corpus/thunder_interpreter_star_args_iterable.py). So every ThunderFX graph with an
operator in it fails, and a ThunderFX lane could test nothing else.

The shim generates each partition's code before Thunder sees it: `_splitter`'s
`thunder_jit` argument is wrapped so that it calls ThunderFX's own `recompile_graph`
(`real_recompile()` on a lazy module) first. It also gives the partition's class (FX
makes one class per GraphModule) `torch.nn.Module.__call__` back in place of FX's
`call_wrapped`: that wrapper catches any exception and runs
`traceback.StackSummary.extract` over the whole traceback to print the generated line,
and Thunder's interpreter runs all of it, so a partition whose trace raises (a registered
Thunder crash, say) took 83 s to raise instead of 0.1 s (a `reshape` of 12 elements to
(5, 7) in a traced GraphModule, measured 2026-12-07), which a campaign sees as a hung
worker. Only FX's extra error message is lost. Nothing else changes: the partition, its
graph and Thunder's options are the ones ThunderFX chose. Like the named-tensor shim it is
not a fix and not switchable (without it the lane cannot exist on the main lane); it is a
`fixes._patching.PatchSet` of kind "compat", gated on `_splitter`'s source, and recorded
with the other shims (fuzz.speedups.compat_state).
"""

from __future__ import annotations

from fixes._patching import Part, Patch, PatchSet, unpatched
from fixes.compat_thunder_named_tensor import import_thunder

# thunder.dynamo.splitter._splitter (lightning-thunder 0.2.6) -> its source_digest.
UPSTREAM_SOURCES = {"splitter": "64693da8be672905"}


def _compiler():
    import_thunder()
    import thunder.dynamo.compiler as compiler

    return compiler


def _upstream_splitter() -> tuple:
    return (unpatched(_compiler(), "_splitter"),)


def _eager_codegen() -> list[Patch]:
    import torch
    from thunder.dynamo.utils import recompile_graph

    def make(splitter):
        def _splitter(gm, thunder_jit, *args, **kwargs):
            def jit_with_code(graph_module, **options):
                recompile_graph(graph_module)  # the code exists before Thunder traces it
                # The partition's own class (FX makes one per GraphModule): Module's call,
                # not FX's error-formatting wrapper (see the docstring).
                type(graph_module).__call__ = torch.nn.Module.__call__
                return thunder_jit(graph_module, **options)

            return splitter(gm, jit_with_code, *args, **kwargs)

        return _splitter

    return [Patch.wrap(_compiler(), "_splitter", make)]


SHIM = PatchSet(
    "thunderfx-lazy-submodules",
    "compat",
    [Part("splitter", _eager_codegen, upstream=_upstream_splitter)],
    UPSTREAM_SOURCES,
)
