"""The ops the XNNPACK lane leaves out of its draws (fuzz.ops.LEFT_OUT["xnnpack"]) are
still ops whose programs it cannot run: each one's one-op programs lower, and the pip
runtime has no kernel for what they lower to (the kernel the list names among them).
When a release adds the kernel, this fails and the op goes back into the lane's draws."""

from __future__ import annotations

import pytest

from fuzz import ops
from fuzz.case_runner import run_case
from tests.op_programs import GENES, one_op_case

LEFT_OUT = ops.LEFT_OUT["xnnpack"]


@pytest.mark.parametrize("name", sorted(LEFT_OUT))
def test_a_left_out_op_still_lowers_to_a_kernel_the_runtime_lacks(name):
    skips = []
    for gene in GENES:
        case = one_op_case(ops.BY_NAME[name], gene, "xnnpack")
        if case is None:
            continue
        (report,) = run_case(case, lanes=("xnnpack",), confirm=False).reports
        assert report.skipped and report.skipped.startswith("no runtime kernel for"), (
            f"{name} {gene}: {report.skipped or report.divergences or 'ran'}"
        )
        skips.append(report.skipped)
    assert skips, f"{name}: no one-op program"
    assert any(LEFT_OUT[name] in why for why in skips), skips
