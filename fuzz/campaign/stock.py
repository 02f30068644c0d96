"""Re-confirming a new finding on the stock stacks before it is filed.

A night runs Thunder and torch.export patched by our speedups (fuzz/speedups.py) unless
told otherwise. A divergence that only shows with them is a bug of ours, not of the
stack, and must not reach an upstream tracker. So triage re-runs each finding it is
about to file as new in a fresh process with the speedups off (`python -m fuzz.outcome
... --speedups off`, the night's fixes and plugins kept) and judges:

  reproduced        the stock run shows the finding's own kind (for a process crash:
                    the process dies or hangs again);
  not reproduced    the stock run passes, or shows other kinds only: the finding is a
                    harness bug (status `harness-bug`, listed apart, exit 1, not counted
                    as an upstream bug);
  inconclusive      the stock run died, hung or gave no outcome for a finding that is
                    not a crash: kept as new, and said so.

At most MAX_STOCK_RERUNS findings are re-run per night; the others say so. A night run
with the speedups off needs none of this: what it found is on the stock stacks.
"""

from __future__ import annotations

from collections.abc import Callable

from fuzz import speedups
from fuzz.campaign.protocol import sha
from fuzz.campaign.supervisor import Supervisor
from fuzz.procs import child_env, outcome_command, outcome_printed, run_isolated

MAX_STOCK_RERUNS = 16

# (source, lane, device) -> (returncode, hung, the fuzz.outcome JSON or None)
StockRerun = Callable[[str, str, str], tuple[int | None, bool, dict | None]]


def run_fresh(
    sup: Supervisor, source: str, lane: str, device: str, tag: str, env: dict, **flags
) -> tuple[int | None, bool, str, str]:
    """Run `source` on one lane in a fresh `python -m fuzz.outcome` with the night's fixes
    and plugins (`flags`: more of fuzz.procs.outcome_command's); returns (exit status,
    hung, its stdout, the tail of its stderr). Crash confirmation and the stock re-run."""
    s = sup.settings
    path = s.out / "scratch" / f"{tag}-{sha(source)[:12]}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    cmd = outcome_command(path, lane, device, s.fixes, s.plugins, **flags)
    printed: list[str] = []
    errors: list[str] = []
    try:
        rc, hung = run_isolated(cmd, child_env() | env, s.example_timeout, printed, errors)
        return rc, hung, "".join(printed), "".join(errors)
    finally:
        path.unlink(missing_ok=True)


def local_stock_rerun(sup: Supervisor) -> StockRerun:
    """The stock re-run on this machine: fuzz.outcome in a fresh process, speedups off."""

    def rerun(source: str, lane: str, device: str) -> tuple[int | None, bool, dict | None]:
        env = {speedups.ENV_VAR: "off"}
        rc, hung, printed, _ = run_fresh(sup, source, lane, device, "stock", env, speedups="off")
        return rc, hung, outcome_printed(printed)

    return rerun


def judge(kind: str, crash: bool, rc: int | None, hung: bool, outcome: dict | None) -> str:
    """ "reproduced", "not reproduced" or "inconclusive" (module docstring)."""
    if crash:
        return "reproduced" if hung or rc else "not reproduced"
    if hung or rc or outcome is None or outcome.get("status") == "error":
        return "inconclusive"
    kinds = {d.get("kind") for d in outcome.get("divergences") or ()}
    return "reproduced" if kind in kinds else "not reproduced"
