"""How many simulated nights draw a fault's corner at least once, by generation alone.

    python lab/night_corners.py LANE PROGRAMS NIGHTS   (e.g. exir 100 10)

A night is two workers of PROGRAMS programs each, drawn as a nightly worker draws them
(lab/bench_focus_coverage.py `night`: rounds of ROUND_EXAMPLES, its op focus on;
worker seeds 2k+1 and 2k+2 for night k). Per night it counts the draws of the fault
benchmark's ops and those in the fault's corner, where the fault can show at all:

* EXIR, `logsumexp_squeeze_first`: `logsumexp_dims` over two or more dims, keepdim=False,
  a float operand;
* Thunder, `thunder_flip_size1`: a flip (`flip`, `flip_dims`) whose flipped dims hold a
  dim of size 1 and a longer one at some call.

No lane runs: a corner drawn is necessary for the fault to be found, not sufficient (the
program must also reach the oracle, benchmarks/fault_bench.py measures that). PROGRAMS
per worker is about what one worker explores in a 120 s night on 2 cores (about 100 EXIR,
115 Thunder programs). Figures: benchmarks/journal/.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sympy  # noqa: E402

from fuzz.ops import dtypes  # noqa: E402
from lab.bench_focus_coverage import night  # noqa: E402

FLIPS = ("flip", "flip_dims")
CORNER = {"exir": "logsumexp corner", "thunder": "flip corner"}
DRAWS = {"exir": "logsumexp", "thunder": "flip"}


def _shape_at(t, sizes: dict) -> list[int] | None:
    out = []
    for d in t.shape:
        e = sympy.sympify(d)
        if any(s.name not in sizes for s in e.free_symbols):
            return None  # a data-dependent size: no size per call
        out.append(int(e.subs({s: sizes[s.name] for s in e.free_symbols})))
    return out


def corners(generated) -> Counter:
    program, hits = generated.program, Counter()
    for node in program.nodes:
        attrs, t = dict(node.attrs), program.types[node.args[0]]
        if node.op in FLIPS:
            hits["flip"] += 1
            for plan in generated.plans:
                shape = _shape_at(t, dict(plan.sizes))
                if shape is None:
                    break
                dims = attrs["dims"]
                if any(shape[d] == 1 for d in dims) and any(shape[d] > 1 for d in dims):
                    hits["flip corner"] += 1
                    break
        if node.op == "logsumexp_dims":
            hits["logsumexp"] += 1
            dims = attrs["dims"]
            several = len(dims) >= 2 if isinstance(dims, tuple) else False
            if several and not attrs["keepdim"] and dtypes.is_float(t.dtype):
                hits["logsumexp corner"] += 1
    return hits


def main() -> None:
    lane, programs, nights = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = [
        night(lane, programs, 2 * k + 1, True, corners)
        + night(lane, programs, 2 * k + 2, True, corners)
        for k in range(nights)
    ]
    corner, draws = CORNER[lane], DRAWS[lane]
    hit = sum(1 for r in rows if r[corner])
    print(
        f"{lane}: {nights} nights of 2 x {programs} programs; nights with a {corner}: {hit}\n"
        f"  {draws} draws per night: {[r[draws] for r in rows]}\n"
        f"  {corner} draws per night: {[r[corner] for r in rows]}"
    )


if __name__ == "__main__":
    main()
