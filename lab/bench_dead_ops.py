"""How many drawn ops reach no output (dead code no oracle compares), and how many of the
flips that could show a size-1 fault are among them.

    python lab/bench_dead_ops.py [--lane thunder] [--programs 300] [--seed 1]
                                        [--tree PATH]

Draws --programs cases for the lane (Hypothesis, generate phase, --seed, no op focus)
and prints the ops drawn, those whose value reaches no program output, and, for `flip`
(drawn as the focus op, weight 40, in a second pass of 400 programs): flips of several
dims, those whose flipped dims hold size 1 and a longer dim at some call (where the flip
fault of tests/faults/thunder_flip_size1.py shows), and how many of those are dead
(flips of data-dependent sizes are counted apart: the plan gives them no size).
`--tree` measures another checkout's generator (e.g. a clone of the commit before a
change): its root goes first on sys.path.
"""

from __future__ import annotations

import argparse
import sys
import types
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FLIPS = ("flip", "flip_dims")  # one dim, several (one op until 2026-12-04)


def _live_nodes(program) -> list[bool]:
    """Per node: whether one of its values reaches an output."""
    live, out = set(program.outputs), []
    for node in reversed(program.nodes):
        reached = bool(live & set(node.outputs))
        if reached:
            live.update(node.args)
        out.append(reached)
    return out[::-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lane", default="thunder")
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args()
    from benchmarks.draws import each_case  # this checkout's, before --tree goes first

    sys.path.insert(0, str(Path(args.tree).resolve()))

    import sympy

    import fuzz.ops.weights as weights

    ops = Counter()

    def count(generated):
        for live in _live_nodes(generated.program):
            ops["drawn"] += 1
            ops["dead"] += not live

    each_case(count, args.programs, args.lane, seed=args.seed)

    flips = Counter()

    def size(d, sizes):
        return int(sympy.sympify(d).subs({s: sizes[s.name] for s in d.free_symbols}))

    def count_flips(generated):
        program = generated.program
        for node, live in zip(program.nodes, _live_nodes(program)):
            dims = dict(node.attrs).get("dims") if node.op in FLIPS else None
            if dims is None:
                continue
            flips["flip"] += 1
            if len(dims) < 2:
                continue
            flips["several dims"] += 1
            shape = program.types[node.args[0]].shape
            if any(program.symbols.has_unbacked(shape[d]) for d in dims):
                flips["data-dependent sizes"] += 1  # no size per call to read
                continue
            for plan in generated.plans:
                sizes = [size(shape[d], dict(plan.sizes)) for d in dims]
                if 1 in sizes and max(sizes) > 1:
                    flips["size 1 and longer"] += 1
                    flips["of those dead"] += not live
                    break

    weights.FOCUS_WEIGHT = 40
    focus = types.SimpleNamespace(for_lane=lambda lane: frozenset(FLIPS))
    each_case(count_flips, 400, args.lane, seed=args.seed, focus=focus)
    share = ops["dead"] / max(ops["drawn"], 1)
    print(f"{args.lane}, seed {args.seed}, {args.tree}: ops {dict(ops)} ({share:.1%} dead)")
    print(f"flip as focus (400 programs): {dict(flips)}")


if __name__ == "__main__":
    main()
