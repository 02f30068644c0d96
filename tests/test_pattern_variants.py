"""Registered bugs are recognised in other programs that show them: other slicing, other
ops around the bug, other dtypes. Each variant below is a hand-written program that
shows a registered bug in a form its corpus case does not have; it must be recognised as
that case's bug (by its MATCHES, on the facts the lane observed), and as no other.

A variant that is reported as new would cost a compiler engineer a morning on a known
bug; the row-block form of the disjoint-views bug was reported as new while the pattern
was a regex over how the harness rendered column blocks.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from fuzz.case import case_from_source
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.outcome import run_lane
from fuzz.prepare import all_fixes_on

INDEX = CorpusIndex.of([DirectoryCorpus(Path(__file__).resolve().parents[1] / "corpus")])

# "case" or "case:form" (a second form of one case's bug) -> (lane, program source).
VARIANTS = {
    # Rows picked by a mask (2-d, dynamic columns) fed to a cond on the backed size.
    "executorch_cond_unbacked_operand_replay:rows": (
        "exir",
        """
        def program(x):
            v = x[x.flatten(1).sum(1) > 0]
            return (torch.cond(v.shape[1] > 5, lambda t: t.abs(), lambda t: t * 2.0, (v,)),)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(3, 6),)]

        DIMS = {"x": {1: (3, 7)}}
        """,
    ),
    # nonzero and masked_select results as the operand, with a second static operand.
    "executorch_cond_unbacked_operand_replay:nonzero": (
        "exir",
        """
        def program(x):
            idx = torch.nonzero(x > 0).flatten()
            vals = torch.masked_select(x, x > 0)
            return torch.cond(
                x.sum() > 0, lambda i, v: (i * 2, v.abs()), lambda i, v: (i + 1, -v), (idx, vals)
            )

        def calls():
            return [(torch.tensor([1.0, -2.0, 3.0]),)]
        """,
    ),
    # unique of an int64 tensor with a checked length: the re-run plans sys.maxsize elements.
    "executorch_rerun_drops_checked_bound:unique": (
        "exir",
        """
        def program(x):
            v = torch.unique(x.long())
            torch._check(v.shape[0] <= x.shape[0])
            return (v * 2,)

        def calls():
            return [(torch.randn(3),), (torch.randn(5),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # repeat_interleave of counts with a checked length: the re-run finds no finite bound.
    "executorch_rerun_drops_checked_bound:repeat_interleave": (
        "exir",
        """
        def program(x):
            v = torch.repeat_interleave(x.abs().clamp(max=2))
            torch._check(v.shape[0] <= 2 * x.shape[0])
            return (v,)

        def calls():
            return [(torch.tensor([1, -2, 0]),), (torch.tensor([2, 0, 1, 1, -1]),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # Disjoint views of one base, as row blocks instead of column blocks, through mul_.
    "thunder_disjoint_views_inplace": (
        "thunder",
        """
        def program(a, b):
            a.mul_(b)
            return (a + 0,)

        def calls():
            base = torch.randn(4, 3)
            return [(base[:2], base[2:])]
        """,
    ),
    # The same tensor twice and an unused first input, with other ops around it.
    "thunder_alias_index_shift": (
        "thunder",
        """
        def program(a, b, c):
            return (c.sin().mul_(2.0), b - 1.0)

        def calls():
            t = torch.zeros(2, 4)
            return [(t, t, torch.ones(2, 4))]
        """,
    ),
    # nonzero of a 3-d mask: its (n, 3) output planned column-major.
    "executorch_nonzero_dim_order": (
        "exir",
        """
        def program(x):
            return (torch.nonzero(x < 0),)

        def calls():
            return [(torch.tensor([[[1.0, -1.0], [-2.0, 3.0]], [[-4.0, 5.0], [6.0, -7.0]]]),)]
        """,
    ),
    # nonzero of a 1-d mask, (n, 1) planned column-major, then an op that checks dim
    # orders: the form a fixes-on nightly met (the corpus case squeezes instead).
    "executorch_nonzero_squeeze_dim_order": (
        "exir",
        """
        def program(x, n):
            return (torch.nonzero(torch.relu(x) > 0) * n,)

        def calls():
            return [(torch.tensor([1.0, -2.0, 3.0]), 0)]
        """,
    ),
    # Two conds with other branch ops: the first cond's result is overwritten.
    "executorch_cond_output_overwritten": (
        "exir",
        """
        def program(x):
            a = torch.cond(x.mean() > 0, lambda x: x.neg(), lambda x: x.abs(), (x,))
            b = torch.cond(x.mean() > 0, lambda x: x + 100.0, lambda x: x - 100.0, (x,))
            return (a, b)

        def calls():
            return [(torch.tensor([1.0, 2.0, 3.0, 4.0]),)]
        """,
    ),
    # Integer remainder with operands of opposite signs, `%` of two tensors broadcast.
    "executorch_remainder_int_sign": (
        "exir",
        """
        def program(a, b):
            return ((a + 1) % b,)

        def calls():
            return [(torch.tensor([[-5], [2]]), torch.tensor([3, -4, 2]))]
        """,
    ),
    # The Scalar overload: `torch.remainder` of an int32 tensor by a negative number.
    "executorch_remainder_int_sign:scalar": (
        "exir",
        """
        def program(x):
            return (x * 2, torch.remainder(x, -3))

        def calls():
            return [(torch.tensor([[1, -1], [4, 7]], dtype=torch.int32),)]
        """,
    ),
    # The Scalar overload through `%` with a positive divisor and negative dividends.
    "executorch_remainder_int_sign:mod-number": (
        "exir",
        """
        def program(x):
            return (x.sum(0) % 5,)

        def calls():
            return [(torch.tensor([[-3, 2, -9], [1, -1, 0]]),)]
        """,
    ),
    # Float inputs only: the int64 dividend is made in the program.
    "executorch_remainder_int_sign:cast": (
        "exir",
        """
        def program(x):
            return (torch.remainder((x * 3).long(), 4),)

        def calls():
            return [(torch.tensor([-1.5, 2.0, -0.4, 1.0]),)]
        """,
    ),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_variant_of_a_registered_bug_is_recognised_as_that_bug(variant):
    if not all_fixes_on():
        pytest.skip("the registry is written for the fixed stacks")
    lane, body = VARIANTS[variant]
    registered = variant.partition(":")[0]
    source = "import torch\n\n" + textwrap.dedent(body) + f"\nLANES = ({lane!r},)\n"
    case = case_from_source(source, f"variant_of_{registered}")
    outcome = run_lane(case, lane, "cpu", index=INDEX)
    assert outcome.status == "divergence", f"the variant did not diverge: {outcome}"
    for d in outcome.divergences:
        assert d["known_as"] == [registered], (
            f"{d['kind']} at {d['stage']} ({d['details'][:200]}), facts "
            f"{d['data'].get('facts')}: known as {d['known_as']}, not [{registered!r}]"
        )


def test_a_pattern_of_another_bug_that_recognises_a_case_is_reported():
    """The corpus items' cross-match check (fuzz.pytest_plugin) names the other bug's case."""
    from fuzz.pytest_plugin import foreign_matches

    case = case_from_source(
        "import torch\n\ndef program(a, b):\n    return (a + b,)\n\n"
        "def calls():\n    return [(torch.ones(2), torch.ones(2))]\n",
        "some_other_bug",
    )
    wrong = {
        "kind": "thunder.wrong-result",
        "stage": "call[0]",
        "details": "output 0: values differ",
        "data": {"control": "diverges too", "facts": {"inputs": ["disjoint-views"]}},
    }
    assert any("by thunder_disjoint_views_inplace" in m for m in foreign_matches(case, [wrong]))
    alone = wrong | {"data": {"control": "diverges too", "facts": {"inputs": []}}}
    assert foreign_matches(case, [alone]) == []
