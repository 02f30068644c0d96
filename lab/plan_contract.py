"""How many EXIR calls fall outside the exported contract by their plan alone, generation
only (no lane runs): the calls the EXIR lane will count as outside and never check.

    python lab/plan_contract.py N SEED   (e.g. 1500 1)

Draws N Hypothesis cases for the EXIR lane and, per call other than the export example
(the first call whose varying dims are all >= 2, as fuzz/backends/exir/inputs.py picks
it), counts calls where a number input differs from the example's (export specializes
numbers) and, of the others, calls where a varying dim is 0 or 1 (0/1 specialization).
A lower bound of the lane's outside-contract rate: guards export keeps (`x.size()[0] !=
3`) and the lane's own exclusions are not modelled. Figures: benchmarks/journal/2026-12-03.md
(ninth session).
"""

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.draws import each_case  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
counts: Counter = Counter()


def count(generated) -> None:
    info = generated.program.symbols.info
    sizes = [dict(plan.sizes) for plan in generated.plans]
    dims = [n for n in sizes[0] if info[n].kind in ("size", "broadcast")]
    numbers = [n for n in sizes[0] if info[n].kind == "number"]
    varying = [n for n in dims if len({s[n] for s in sizes}) > 1]
    example = next((s for s in sizes if all(s[n] >= 2 for n in varying)), sizes[0])
    for s in sizes:
        if s is example:
            continue
        counts["calls"] += 1
        number = any(s[n] != example[n] or type(s[n]) is not type(example[n]) for n in numbers)
        small = any(s[n] <= 1 for n in varying)
        counts["number differs"] += number
        counts["dim 0/1"] += small and not number
        counts["outside"] += number or small


if __name__ == "__main__":
    each_case(count, N, "exir", seed=int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    share = counts["outside"] / max(counts["calls"], 1)
    print(dict(counts), f"outside share {share:.1%}")
