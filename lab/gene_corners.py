"""Per-draw corner rates of flip and logsumexp_dims, and size-1 shares, by generation alone.

    python lab/gene_corners.py N LANE SEED   (e.g. 4000 thunder 1)

Draws N Hypothesis cases for LANE (phase generate only, no database) and counts: cases
where some size symbol is 1 at one call and above 1 at another; cases with one size 1
and another above 1 at the same call; flip draws, multi-dim flips, and flips in
thunder_flip_size1's corner (a flipped dim of size 1 with another flipped dim above 1 at
some call); logsumexp_dims draws with two or more dims, keepdim=False, a float operand.
Figures: benchmarks/journal/2026-12-03.md (eighth session)."""

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sympy  # noqa: E402

from benchmarks.draws import each_case  # noqa: E402
from fuzz.ops import dtypes  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
stats = Counter()
seen = set()


def shape_at(t, sizes):
    if any(s.name not in sizes for d in t.shape for s in sympy.sympify(d).free_symbols):
        return None
    return [
        int(sympy.sympify(d).subs({s: sizes[s.name] for s in sympy.sympify(d).free_symbols}))
        for d in t.shape
    ]


def check(g):
    p = g.program
    stats["cases"] += 1
    stats["ops"] += len(p.nodes)
    seen.update(n.op for n in p.nodes)
    info = p.symbols.info
    sizes = [dict(pl.sizes) for pl in g.plans]
    names = [n for n in sizes[0] if info[n].kind in ("size", "broadcast")]
    stats["case size1 flips"] += any(len({s[n] == 1 for s in sizes}) == 2 for n in names)
    stats["case some dim 1"] += any(s[n] == 1 for s in sizes for n in names)
    # two distinct size symbols, one at 1 and the other above 1 at the same call
    stats["case one-1-other-not"] += any(
        any(s[a] == 1 for a in names) and any(s[b] > 1 for b in names) for s in sizes
    )
    for n in p.nodes:
        attrs = dict(n.attrs)
        t = p.types[n.args[0]]
        if n.op in ("flip", "flip_dims"):
            stats["flip"] += 1
            dims = attrs["dims"]
            if len(dims) >= 2:
                stats["flip multi"] += 1
            hit = False
            any1 = False
            for plan in g.plans:
                sz = dict(plan.sizes)
                s = shape_at(t, sz)
                if s is None:
                    stats["flip unbacked"] += 1
                    break
                ones = [d for d in dims if s[d] == 1]
                big = [d for d in dims if s[d] > 1]
                any1 |= bool(ones)
                hit |= bool(ones and big)
            stats["flip size1 somewhere"] += any1
            stats["flip corner"] += hit
        if n.op == "logsumexp_dims":
            stats["lse"] += 1
            dims = attrs["dims"]
            nd = t.rank if dims is None else (1 if isinstance(dims, int) else len(dims))
            if nd >= 2 and not attrs["keepdim"] and dtypes.is_float(t.dtype):
                stats["lse corner"] += 1


lane = sys.argv[2] if len(sys.argv) > 2 else "thunder"


each_case(check, N, lane, seed=int(sys.argv[3]) if len(sys.argv) > 3 else 0)
stats["distinct ops"] = len(seen)
print(lane, dict(sorted(stats.items())))
