"""Differential fuzzing of PyTorch compiler stacks on dynamic shapes.

The public API is small:

    from fuzz import cases, run_case, load_case
    @given(cases(lanes=("thunder",)))          # Hypothesis strategy of generated cases
    def test(generated):
        result = run_case(generated.case, lanes=("thunder",))
        assert not result.divergences

Layers, each importing only the ones below it (the import-linter layers contract in
pyproject.toml states these groups; modules of one group may import each other):
    core      fuzz.case (the case-file format), fuzz.divergence (kinds), fuzz.signature,
              fuzz.corpus, fuzz.known (registered bugs), fuzz.buckets, fuzz.procs (child
              processes), fuzz.native_stack (the kernel a process died in),
              fuzz.speedups (the speedups switch), fuzz.errors, fuzz.defaults (defaults
              shared by the commands, the campaign and the generator): no torch
    generator fuzz.ops (the op catalogue), fuzz.program, fuzz.calls, fuzz.render,
              fuzz.reduce (1-minimal programs), fuzz.strategies, fuzz.settings (Hypothesis
              profiles)
    lanes     fuzz.tensors, fuzz.observe, fuzz.oracles, fuzz.facts, fuzz.custom_ops,
              fuzz.backends, fuzz.case_runner, fuzz.outcome (run one lane and classify),
              fuzz.prepare (per-process setup)
    commands  fuzz.campaign (the nightly job), fuzz.replay, fuzz.repro_export, fuzz.explore
              (in-process exploration), fuzz.extra (optional engines), fuzz.__main__,
              fuzz.pytest_plugin (pytest: the fixes switch, corpus cases as items),
              fuzz.docs (the generated docs)

The names above are loaded on first use (PEP 562), so `import fuzz.case` or
`import fuzz.signature` does not import torch.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Case": "fuzz.case",
    "CaseError": "fuzz.case",
    "case_from_source": "fuzz.case",
    "load_case": "fuzz.case",
    "KINDS": "fuzz.divergence",
    "Divergence": "fuzz.divergence",
    "CaseResult": "fuzz.case_runner",
    "run_case": "fuzz.case_runner",
    "call_plans": "fuzz.strategies",
    "cases": "fuzz.strategies",
    "programs": "fuzz.strategies",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'fuzz' has no attribute {name!r}")
