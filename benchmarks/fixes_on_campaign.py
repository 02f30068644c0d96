"""A fixes-on campaign of N generated programs per lane, without shrinking: the count
behind "with the fixes on, the harness stays clean except for known upstream bugs".

    python benchmarks/fixes_on_campaign.py --lane thunder --examples 500 [--fixes on]

Prints programs run, skips, and divergences by kind, split into the kinds our fixes are
about (Thunder cache soundness; EXIR planned memory and aliasing) and the rest. Every
program with a divergence of the first group is written to --out for review, so each
can be matched to a registered known upstream bug (corpus/ cases with EXPECT) or filed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fixes  # noqa: E402

FIX_KINDS = {
    "thunder": {"thunder.unsound-hit", "thunder.wrong-result", "thunder.aliasing"},
    "exir": {
        "exir.spec-meta",
        "exir.under-allocation",
        "exir.bound-loss",
        "exir.overlap",
        "exir.aliasing",
        "exir.pipeline-variance",
    },
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lane", choices=sorted(FIX_KINDS), required=True)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--fixes", default="on")
    parser.add_argument("--out", default="fuzz-out/fixes-on")
    args = parser.parse_args()
    print("fixes:", fixes.apply(args.fixes), fixes.package_versions())
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from fuzz.engine import run_case
    from fuzz.strategies import cases

    out = Path(args.out) / args.lane
    out.mkdir(parents=True, exist_ok=True)
    stats, kinds = Counter(), Counter()
    start = time.perf_counter()

    @seed(args.seed)
    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(lanes=(args.lane,)))
    def campaign(generated):
        result = run_case(generated.case, lanes=(args.lane,), devices=("cpu",))
        stats["programs"] += 1
        stats["skipped"] += sum(r.skipped is not None for r in result.reports)
        stats["flaky"] += len(result.flaky)
        for r in result.reports:
            stats.update({k: v for k, v in r.counters.items() if k in ("hits", "misses")})
        seen = {(d.kind, d.data.get("control", "")) for d in result.divergences}
        kinds.update(seen)
        if any(k in FIX_KINDS[args.lane] for k, _ in seen):
            text = "\n".join(f"# {d}" for d in result.divergences)[:4000]
            (out / f"{generated.case.name}.py").write_text(text + "\n" + generated.source)

    campaign()
    wall = time.perf_counter() - start
    print(
        f"lane={args.lane} programs={stats['programs']} skipped={stats['skipped']} "
        f"flaky={stats['flaky']} hits={stats['hits']} misses={stats['misses']} "
        f"wall={wall:.0f}s ({stats['programs'] / wall:.2f} programs/s)"
    )
    for group, members in (("fix-relevant", FIX_KINDS[args.lane]), ("other", None)):
        rows = [
            (k, c, n)
            for (k, c), n in sorted(kinds.items())
            if (k in FIX_KINDS[args.lane]) == (members is not None)
        ]
        print(f"{group} divergences (programs): {sum(n for *_, n in rows)}")
        for k, c, n in rows:
            print(f"  {k:<28} {n:4d}  {('control: ' + c) if c else ''}")
    print(f"programs with fix-relevant divergences written to {out}/")


if __name__ == "__main__":
    main()
