"""Differential fuzzing of PyTorch compiler stacks on dynamic shapes.

The public API is small:

    from fuzz import cases, run_case, load_case
    @given(cases(lanes=("thunder",)))          # Hypothesis strategy of generated cases
    def test(generated):
        result = run_case(generated.case, lanes=("thunder",))
        assert not result.divergences

Rooms, each behind a narrow door:
    fuzz/ops/          the op catalogue (one OpSpec per op: constraints, shape rule, template)
    fuzz/program.py    program IR and decoder;   fuzz/calls.py  call plans
    fuzz/strategies.py Hypothesis strategies;    fuzz/render.py source rendering
    fuzz/case.py       the case-file format;     fuzz/engine.py eager + lanes + confirmation
    fuzz/backends/     eager, thunder, exir;     fuzz/oracles/  divergence checks
    fuzz/divergence.py divergence kinds (the public contract) and records
"""

from fuzz.case import Case, CaseError, case_from_source, load_case  # noqa: F401
from fuzz.divergence import KINDS, Divergence  # noqa: F401
from fuzz.engine import CaseResult, run_case  # noqa: F401
from fuzz.strategies import call_plans, cases, programs  # noqa: F401
