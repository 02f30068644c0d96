"""How often one draw of a faulty op shows its fault: the per-draw sensitivity behind the
fault benchmark (benchmarks/fault_bench.py), generation and one lane, no campaign.

    python lab/bench_fault_sensitivity.py FAULT [--ops a,b] [--programs 150]
                                                 [--seed 1] [--as-worker] [--fork]
                                                 [--verbose]

FAULT is a name in tests/faults (its lane and, unless --ops, the ops it lives in
come from there). Hypothesis draws --programs cases for the lane with those ops as the
focus, weighted so that about half the programs hold one; each program that holds one
runs once with the fault installed and, when it diverges, once without: it counts when
the fault adds a divergence (kind, stage and details; fixes and speedups on, no
confirmation re-run). Prints
programs drawn, programs holding the op, and programs that showed the fault; a night
that draws the op N times finds the fault with probability about 1 - (1 - p)^N.

`--as-worker`: the programs are drawn as a nightly worker draws them (rounds of
ROUND_EXAMPLES, its op focus on, no weight on the fault's ops), so "programs holding
the op" is what a night of that many programs would draw, and each of them is tried.

Cases run in this process (fast, unlike the nightly's workers): a program that kills the
process, such as a registered ExecuTorch runtime abort (corpus/executorch_amax_empty_abort.py,
met by logsumexp_squeeze_first's programs), ends the run with no figure. `--fork` runs each
program that holds the op in a forked child instead (torch on one thread, as fork needs): a
child killed by a signal is counted as `killed`, not as showing the fault (the nightly files
such a kill as a crash that the registry tells apart by its log, which a fork does not keep).
`--verbose` prints each program holding the op: its lines calling the op, its inputs, and
what the runs with and without the fault showed (why a draw missed the fault).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import pickle
import sys
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import fuzz.ops.weights  # noqa: E402
from benchmarks.draws import each_case  # noqa: E402
from fuzz.campaign.focus import Focus  # noqa: E402
from fuzz.campaign.rounds import ROUND_EXAMPLES  # noqa: E402
from fuzz.case_runner import run_case  # noqa: E402
from fuzz.prepare import prepare  # noqa: E402
from tests.faults import FAULTS  # noqa: E402

# The ops each fault lives in (the fault's own docstring says where it is).
FAULT_OPS = {
    "logsumexp_squeeze_first": ("logsumexp_dims",),
    "export_floordiv_trunc": ("floordiv", "floordiv_number"),
    "thunder_flip_size1": ("flip", "flip_dims"),
}


def _shown(result) -> set[tuple[str, str, str]]:
    """What a run showed: its divergences by kind, stage and details (by kind alone, a
    fault's wrong value on one output was not counted where another output of the
    program already diverged by a registered bug)."""
    return {(d.kind, d.stage, d.details) for d in result.divergences}


def forked(fn, *args):
    """`fn(*args)` in a forked child: its result, or None when a signal killed the child.
    An exception in the child ends the measure (its traceback is on stderr)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        status = 1
        try:
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(fn(*args), out)
            status = 0
        except BaseException:  # noqa: BLE001 - reported by the parent
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as inp:
        data = inp.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return None
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("the forked child raised (traceback above)")
    return pickle.loads(data)  # noqa: S301 - our own child's output


def _explain(case, ops, faulty, stock, added) -> None:
    """--verbose: the program's lines that call the op, its inputs, and what each run showed."""
    names = {op.split("_")[0] for op in ops}
    lines = [ln.strip() for ln in case.source.splitlines() if any(n in ln for n in names)]
    inputs = (getattr(case.module, "META", None) or {}).get("inputs")

    def kinds(result):
        if result is None:
            return "nothing"
        return "; ".join(
            sorted({f"{d.kind}@{d.stage} {d.details[:70]}" for d in result.divergences})
        )

    verdict = "SHOWN" if added else "missed"
    print(f"--- {verdict}: {' | '.join(lines)[:300]}  inputs {inputs}", flush=True)
    print(f"    with the fault: {kinds(faulty)[:400]}", flush=True)
    if not added:
        print(f"    stock:          {kinds(stock)[:400]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fault", choices=sorted(FAULTS))
    parser.add_argument("--ops", default=None, help="comma-separated op names")
    parser.add_argument("--programs", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--as-worker", action="store_true", help="draw as a nightly worker")
    parser.add_argument("--fork", action="store_true", help="run each program in a forked child")
    parser.add_argument(
        "--verbose", action="store_true", help="print each program holding the op and why"
    )
    args = parser.parse_args()
    module_name, lane = FAULTS[args.fault][:2]
    ops = tuple(args.ops.split(",")) if args.ops else FAULT_OPS[args.fault]
    prepare("on", (), "on")
    fault = importlib.import_module(module_name)
    fault.uninstall()
    if args.as_worker:
        focus = Focus((lane,), args.seed, True)
    else:
        # A third of all programs hold a focus op (flip: 101 of 300).
        fuzz.ops.weights.FOCUS_WEIGHT = 40
        focus = types.SimpleNamespace(for_lane=lambda lane: frozenset(ops))
    counts = {"programs": 0, "with_op": 0, "showed_fault": 0}
    if args.fork:
        import torch

        torch.set_num_threads(1)  # a forked child cannot use the parent's thread pool
        counts["killed"] = 0

    def fault_shown(case) -> bool:
        fault.install()
        try:
            faulty = run_case(case, (lane,), ("cpu",), confirm=False)
        finally:
            fault.uninstall()
        stock = run_case(case, (lane,), ("cpu",), confirm=False) if faulty.divergences else None
        added = _shown(faulty) - (_shown(stock) if stock is not None else set())
        if args.verbose:
            _explain(case, ops, faulty, stock, added)
        return bool(added)

    def try_program(generated) -> None:
        counts["programs"] += 1
        if args.as_worker:
            focus.explored_program((node.op for node in generated.program.nodes), lane)
        if not any(node.op in ops for node in generated.program.nodes):
            return
        counts["with_op"] += 1
        shown = forked(fault_shown, generated.case) if args.fork else fault_shown(generated.case)
        if shown is None:
            counts["killed"] += 1
        elif shown:
            counts["showed_fault"] += 1

    def run(generated):
        if counts["programs"] < args.programs:
            try_program(generated)

    def run_all() -> None:
        if not args.as_worker:
            each_case(run, args.programs, lane, seed=args.seed, focus=focus)
            return
        for round_no in itertools.count():  # rounds, the focus moving between them
            if counts["programs"] >= args.programs:
                return
            focus.move_if_due()
            each_case(run, ROUND_EXAMPLES, lane, seed=args.seed * 100_000 + round_no, focus=focus)

    started = time.perf_counter()
    run_all()
    share = counts["showed_fault"] / max(counts["with_op"], 1)
    print(
        f"{args.fault} ({lane}; ops {', '.join(ops)}; seed {args.seed}"
        f"{'; as a worker' if args.as_worker else ''}): {counts}, "
        f"per program holding the op {share:.1%}, {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
