"""What remembering the allowed non-core operators saves the EXIR lane, side by side.

    python lab/bench_non_core.py [--programs 40] [--seed 1]

`fuzz.backends.exir.pipeline.lower_to_edge` allows an operator outside Core ATen by
re-running `to_edge` with it in `_core_aten_ops_exception_list`. With the speedups on, the
operators allowed for earlier programs are allowed from the first try. This draws
--programs EXIR cases (Hypothesis, generate phase, --seed) and runs each through the
lane twice, back to back, in alternating order: once as each program learned its own
("per program": the list emptied first) and once with what the earlier programs of that
mode learned ("remembered"). Prints, per mode, to_edge calls and the lane's seconds
(`run_case`, no confirmation re-run), and their ratio. Both modes build the same graphs
(tests/stacks/exir/test_exir_non_core.py).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import fuzz.backends.exir.pipeline as pipeline  # noqa: E402
from benchmarks.draws import draw  # noqa: E402
from fuzz.case_runner import run_case  # noqa: E402
from fuzz.prepare import prepare  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    prepare("on", (), "on")
    drawn = draw(args.programs, args.seed, "exir")

    real_to_edge = pipeline.to_edge
    calls = {"per program": 0, "remembered": 0}
    seconds = {"per program": 0.0, "remembered": 0.0}
    learned: list = []
    mode = "per program"

    def counting(*a, **k):
        calls[mode] += 1
        return real_to_edge(*a, **k)

    pipeline.to_edge = counting
    run_case(drawn[0].case, lanes=("exir",), devices=("cpu",), confirm=False)  # warm-up
    calls["per program"] = 0
    for i, generated in enumerate(drawn):
        order = ("per program", "remembered") if i % 2 else ("remembered", "per program")
        for mode in order:
            pipeline._ALLOWED_NON_CORE[:] = learned if mode == "remembered" else []
            start = time.perf_counter()
            run_case(generated.case, lanes=("exir",), devices=("cpu",), confirm=False)
            seconds[mode] += time.perf_counter() - start
            if mode == "remembered":
                learned = list(pipeline._ALLOWED_NON_CORE)
    print(f"{len(drawn)} EXIR programs, seed {args.seed}")
    for m in calls:
        print(f"  {m:12}: {calls[m]:4} to_edge calls, {seconds[m]:7.1f} s in the lane")
    ratio = seconds["remembered"] / seconds["per program"]
    print(f"  remembered / per program, lane seconds: {ratio:.3f}")
    print(f"  operators remembered: {[str(op) for op in learned]}")


if __name__ == "__main__":
    main()
