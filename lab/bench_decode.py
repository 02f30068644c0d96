"""Decode cost of the generator: milliseconds per program that `fuzz.program.decode`
takes to turn a genome into a program, per lane, over the same seeded genomes.

    python lab/bench_decode.py [--programs 300] [--seed 5]

Run it in each checkout to compare (`PYTHONPATH=CHECKOUT python lab/bench_decode.py`
from that checkout, so its `fuzz` is the one imported). The genomes are drawn with
`random.Random(seed)`, not Hypothesis, so every checkout decodes the very same genes.
"""

from __future__ import annotations

import argparse
import random
import time

from fuzz import ops
from fuzz.program import Genome, decode


def genomes(n: int, seed: int) -> list[Genome]:
    rng = random.Random(seed)

    def gene():
        return tuple(rng.randrange(16) for _ in range(8))

    return [
        Genome(
            inputs=tuple(gene() for _ in range(rng.randrange(1, 4))),
            ops=tuple(gene() for _ in range(rng.randrange(1, 9))),
            numbers=tuple(gene() for _ in range(rng.randrange(0, 3))),
        )
        for _ in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    drawn = genomes(args.programs, args.seed)
    for lane in ("exir", "thunder"):
        lane_ops = ops.for_lanes([lane])
        start = time.perf_counter()
        for genome in drawn:
            decode(genome, lane_ops)
        per = (time.perf_counter() - start) / len(drawn) * 1000
        print(f"{lane}: {len(lane_ops)} ops, {per:.2f} ms per decoded program")


if __name__ == "__main__":
    main()
