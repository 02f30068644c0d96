"""The Thunder repro scripts, in Thunder's idiom: `jfn = thunder.jit(program)`, the calls
that fill the cache, then the call that goes wrong against eager.

The default cache is tried before `cache="symbolic values"` (a bug that shows under the
default cache is not the symbolic cache's), and each script makes only the checks of the
problem it shows:

  values   outputs and written inputs against eager (`torch.testing.assert_close`); a
           call Thunder raises on where eager returns is the same check failing
  sharing  which outputs share memory with which inputs, against eager
  hit      a cache hit must run the trace a fresh `thunder.jit` builds for the same call
           (the operations of both traces, their decompositions included, are compared;
           both traces are printed)
"""

from __future__ import annotations

from fuzz.repro_export.exir import tolerance_args
from fuzz.repro_export.inputs import Form, Inputs
from fuzz.repro_export.script import THUNDER_SHIM, Script
from fuzz.repro_export.source import THUNDER_REGISTERED, custom_ops_source
from fuzz.repro_export.subject import Subject

TRACKER = "Lightning-AI/lightning-thunder"
STAGES = ("default", "symbolic")
# The ThunderFX lane's scripts: Thunder under torch.compile, as `thunderfx` builds it.
STAGES_OF = {
    "thunder": STAGES,
    "thunderfx": ("thunderfx",),
    # plain thunder.jit first: a bug that shows there is filed as it is
    "thunderprims": (*STAGES, "decompositions"),
}
CHECKS = ("values", "sharing", "hit")
JIT = {
    "default": "thunder.jit(program{ex})",
    "symbolic": 'thunder.jit(program, cache="symbolic values"{ex})',
    "thunderfx": "thunderfx(program, dynamic=True{ex})",
    "decompositions": "jit_decomposing(program{ex})",
}
WHAT = {
    "default": "`thunder.jit` (its default cache)",
    "symbolic": '`thunder.jit(..., cache="symbolic values")`',
    "thunderfx": "`thunderfx(..., dynamic=True)`, Thunder as the backend of `torch.compile`",
    "decompositions": (
        "`thunder.jit` with Thunder's own decompositions run: the torch executor limited to prims"
    ),
}
# Thunder on CPU runs its decompositions only where no executor takes an op whole, and the
# torch executor takes nearly all; the harness's lane (fuzz/backends/thunderprims) declines
# every op whose decomposition can run. A script keeps the short form: prims only.
DECOMPOSITIONS = """import thunder.core.prims as prims
from thunder.executors.torchex import ex as torchex
from thunder.extend import OperatorExecutor, get_always_executors, set_always_executors

# Thunder's decompositions on CPU: an executor running only prims with torch (the torch
# executor would run each torch op whole), and no torch executor among the "always" ones.
prims_ex = OperatorExecutor("torch_prims")
prims_ex._implmap = {k: v for k, v in torchex.implmap.items() if isinstance(k, prims.PrimIDs)}


def jit_decomposing(fn, executors=(), **options):
    always = get_always_executors()
    set_always_executors([ex for ex in always if ex is not torchex])
    try:
        return thunder.jit(fn, executors=[*executors, prims_ex], **options)
    finally:
        set_always_executors(list(always))"""
# ThunderFX on torch 2.13 fails on every graph without this (Thunder's interpreter runs FX's
# lazy code generation: corpus/thunder_interpreter_star_args_iterable.py); the harness's
# lane runs with the same workaround (fixes/compat_thunderfx_lazy_submodules.py).
THUNDERFX_WORKAROUND = """import thunder.dynamo.compiler as thunderfx_compiler
from thunder.dynamo import thunderfx

# ThunderFX on torch 2.13: generate each split submodule's code before Thunder traces it
# (else every graph fails: "object of type 'generator' has no len()")

splitter = thunderfx_compiler._splitter


def splitter_with_code(gm, thunder_jit, *args, **kwargs):
    def jit(submodule, **options):
        submodule.real_recompile() if hasattr(submodule, "real_recompile") else None
        type(submodule).__call__ = torch.nn.Module.__call__
        return thunder_jit(submodule, **options)

    return splitter(gm, jit, *args, **kwargs)


thunderfx_compiler._splitter = splitter_with_code"""


class ThunderScripts:
    def __init__(self, subject: Subject):
        self.s = subject

    def _jit(self, stage: str) -> str:
        ex = ""
        if any(op in THUNDER_REGISTERED for op in self.s.code.custom_ops):
            ex = ", executors=[custom_op_ex, *thunder.get_default_executors()]"
            if stage == "decompositions":
                ex = ", executors=[custom_op_ex]"
        return JIT[stage].format(ex=ex)

    def script(self, stage: str, checks: tuple[str, ...], form: Form) -> Script:
        s = self.s
        script = Script(shim=THUNDER_SHIM).need("import torch", "import thunder")
        if stage == "thunderfx":
            script.add(THUNDERFX_WORKAROUND)  # imports thunder.dynamo after the shim
        if stage == "decompositions":
            script.add(DECOMPOSITIONS)
        inputs = Inputs(s, form.values)
        if any(op in THUNDER_REGISTERED for op in s.code.custom_ops):
            script.need("from thunder.executors.custom_op_ex import custom_op_ex")
            script.need("from thunder.torch.custom_op import _register_custom_op")
        if form.values == "calls":
            if s.code.uses_random:
                script.need("import random")
            if s.mutated:
                script.need("import copy")
        if s.device == "cuda":
            script.add(
                "if not torch.cuda.is_available():\n"
                '    raise SystemExit("This needs a CUDA device.")'
            )
        script.add(custom_ops_source(s.code.custom_ops, planned=False, thunder=True))
        script.add(s.code.helpers)
        script.add(s.code.function)
        if "sharing" in checks:
            script.add(
                "def shared(outputs, inputs):\n"
                "    # for each output, which inputs and earlier outputs share its memory\n"
                "    key = lambda t: t.untyped_storage().data_ptr() or id(t)  # empty: none\n"
                "    return [[key(o) == key(t) for t in [*inputs, *outputs[:n]]] "
                "for n, o in enumerate(outputs)]"
            )
        if "hit" in checks:
            script.add(
                "def ops(bound_symbols):\n"
                "    # what a trace runs: each operation with its decomposition\n"
                "    return [(b.sym.name, ops(b.subsymbols)) for b in bound_symbols]"
            )
        setup = [inputs.preamble()] if inputs.preamble() else []
        setup.append(f"jfn = {self._jit(stage)}")
        for j in form.warmup:
            setup.append(self._warm(inputs, j))
        script.add("\n".join(setup))
        if form.call is not None and form.raises:
            script.add(inputs.bind(form.call) + "\n" + self._refuses(inputs))
        elif form.call is not None:
            script.add(
                self._call(stage, checks, inputs, form.call, loop=False, warmed=bool(form.warmup))
            )
        else:
            indices = [c.index for c in s.checkable]
            listed = ", ".join(map(str, indices)) + ("," if len(indices) == 1 else "")
            body = self._call(stage, checks, inputs, "i", loop=True, warmed=True)
            script.add(f"for i in ({listed}):\n" + _indent(body))
        return script.seeded()

    def _refuses(self, inputs: Inputs) -> str:
        return "\n".join(
            [
                "try:",
                f"    program({inputs.args})",
                "except Exception as e:",
                '    print("eager raises:", e)',
                "try:",
                f"    actual = jfn({inputs.args})",
                "except Exception as e:",
                '    print("thunder raises too:", e)',
                "else:",
                '    print("thunder returns", actual)',
                "    raise SystemExit(1)",
            ]
        )

    def _warm(self, inputs: Inputs, j: int) -> str:
        if inputs.values == "calls":
            return f"jfn(*inputs[{j}])"
        fresh = inputs.fresh(j)
        return f"jfn{fresh[:-2]})" if fresh.endswith(",)") else f"jfn{fresh}"

    def _call(self, stage, checks, inputs: Inputs, index, loop: bool, warmed: bool) -> str:
        """The checked call: eager's result (`expected`) against Thunder's (`actual`), on
        copies of their own where the program writes to its inputs."""
        s = self.s
        mutated = bool(s.mutated)
        lines = []
        if loop:
            lines.append('print(f"call {i}:")')
            lines.append(f"{inputs.as_tuple} = inputs[i]" if inputs.names else "args = inputs[i]")
        elif not mutated:
            lines.append(inputs.bind(index))
        if mutated:
            fresh = "copy.deepcopy(inputs[i])" if loop else inputs.fresh(index)
            if inputs.values == "calls" and not loop:
                fresh = f"copy.deepcopy(inputs[{index}])"
            lines.append(f"eager_args, args = {fresh}, {fresh}")
            call, eager = "*args", "program(*eager_args)"
        else:
            fresh, call, eager = None, inputs.args, f"program({inputs.args})"
        if "values" in checks or "sharing" in checks:
            lines.append(f"expected = {eager}")
        lines.append(f"actual = jfn({call})")
        if warmed and stage == "symbolic":
            lines.append('print("cache hits:", thunder.cache_hits(jfn))')
        if "values" in checks:
            after = (", eager_args", ", args") if mutated else ("", "")
            lines.append(f'print("eager:  ", expected{after[0]})')
            lines.append(f'print("thunder:", actual{after[1]})')
            compare = "(actual, args), (expected, eager_args)" if mutated else "actual, expected"
            lines.append(f"torch.testing.assert_close({compare}{tolerance_args(s)})")
        if "sharing" in checks:
            as_list = {"tensor": "[{v}]", "flat": "list({v})"}.get(
                s.outputs, "torch.utils._pytree.tree_leaves({v})"
            )
            theirs_in, ours_in = self._tensor_inputs(inputs, mutated)
            ours = f"shared({as_list.format(v='actual')}, {ours_in})"
            theirs = f"shared({as_list.format(v='expected')}, {theirs_in})"
            lines.append(f'print("shared memory, eager:", {theirs}, "thunder:", {ours})')
            lines.append(f"assert {ours} == {theirs}")
        if "hit" in checks:
            lines.append(f"fresh = {self._jit(stage)}")
            lines.append(f"fresh(*{fresh})" if mutated else f"fresh({call})")
            lines.append("cached, new = thunder.last_traces(jfn), thunder.last_traces(fresh)")
            lines.append(
                'print("the trace the call ran:", cached[-1], '
                '"a fresh trace of it:", new[-1], sep="\\n")'
            )
            lines.append(
                "assert [ops(t.bound_symbols) for t in (cached[0], cached[-1])] == "
                "[ops(t.bound_symbols) for t in (new[0], new[-1])]"
            )
        return "\n".join(lines)

    def _tensor_inputs(self, inputs: Inputs, mutated: bool) -> tuple[str, str]:
        """(eager's, Thunder's) tensor inputs, as list expressions."""
        first = self.s.calls[0].args
        positions = [i for i, a in enumerate(first) if hasattr(a, "untyped_storage")]
        if mutated:
            return (
                "[" + ", ".join(f"eager_args[{i}]" for i in positions) + "]",
                "[" + ", ".join(f"args[{i}]" for i in positions) + "]",
            )
        if inputs.names:
            listed = "[" + ", ".join(inputs.names[i] for i in positions) + "]"
        else:
            listed = "[" + ", ".join(f"args[{i}]" for i in positions) + "]"
        return listed, listed


def _indent(text: str) -> str:
    return "\n".join(("    " + ln) if ln else ln for ln in text.splitlines())
