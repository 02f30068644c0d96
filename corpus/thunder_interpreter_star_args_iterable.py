"""Known upstream bug (Thunder 0.2.6, any cache): `f(*iterable)` raises unless it is a list/tuple.

`max(*(d for d in x.shape))` unpacks a generator into a call. CPython's CALL_FUNCTION_EX
turns any iterable into the argument tuple; Thunder's handler of that opcode
(`_call_function_ex_handler` in `thunder/core/interpreter.py`) hands the iterable to
`wrap_args_from_list`, which takes `len()` of it and indexes it, so a generator, a dict's
keys or an iterator raise "TypeError: object of type 'generator' has no len()" (an
`InterpreterError`: thunder.crash at call[0]; eager returns `3 * x`). The same program
under either cache raises; our fixes do not touch it.

Why it matters beyond such programs: ThunderFX on torch 2.13 jits each split submodule
while it is still a lazy `GraphModule` (`torch.fx.passes.split_module` makes them with
`_make_graph_module`; torch 2.9.1 made plain `GraphModule`s), so Thunder's interpreter
runs FX's code generation, whose `emit_node` calls `format(*(... for a in node.args))`.
`thunderfx(lambda x: x * 2)(torch.ones(3))` raises this error, and `torch.mul(x, 2)` its
dict-keys form. The harness's ThunderFX lane works around that by generating each
submodule's code before Thunder sees it (fixes/compat_thunderfx_lazy_submodules.py).
"""

import torch


def program(x):
    return (x * max(*(d for d in x.shape)),)


def calls():
    return [(torch.randn(2, 3),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py).
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"InterpreterError: Encountered exception TypeError: object of type "
        r"'(generator|MappingKeysView|MappingValuesView|SequenceIter)' has no len\(\)",
    },
)
# Searched the issue index for "thunder interpreter CALL_FUNCTION_EX generator has no
# len wrap_args_from_list" and "thunderfx object of type 'generator' has no len()
# emit_node", and the code of Lightning-AI/lightning-thunder main (2026-01-29): the
# handler still calls wrap_args_from_list on the raw iterable; no report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "thunder.jit: f(*iterable) raises 'has no len()' unless the iterable is a list or tuple"
DESCRIBE = """
`x * max(*(d for d in x.shape))` raises `InterpreterError: Encountered exception
TypeError: object of type 'generator' has no len()` under `thunder.jit`; eager returns `3 *
x` for a 2x3 `x`. `max(*{2: 0, 3: 1}.keys())` and `max(*iter((2, 3)))` raise the same way
('MappingKeysView', 'SequenceIter'); `max(*[2, 3])` works. CPython's `CALL_FUNCTION_EX`
accepts any iterable for the star argument and builds a tuple from it; the interpreter's
`_call_function_ex_handler` passes it to `wrap_args_from_list`, which needs `len()` and
indexing. Converting a non-tuple iterable to a tuple first (as CPython does) would fix it.

This also breaks ThunderFX on torch 2.13: `thunderfx(lambda x: x * 2)(torch.ones(3))`
raises the same error, because the split submodules are lazy `GraphModule`s whose code is
generated inside the interpreter on first call, and FX's `emit_node` uses
`format(*(generator))`.
"""
RELATED = ("https://github.com/Lightning-AI/lightning-thunder/pull/1094",)
