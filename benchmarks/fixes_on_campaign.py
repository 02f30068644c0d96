"""A fixes-on campaign of N generated programs per lane, without shrinking: the count behind
"with the fixes on, every finding is a registered upstream bug or a new one in corpus/".

    python benchmarks/fixes_on_campaign.py --lane exir --examples 500 [--seed 2026]
                                           [--fixes on] [--corpus corpus] [--out DIR]

Runs `fuzz.explore.explore` (seeded, one process, every divergence confirmed by a second
run), asks the corpus about every divergence (`known_as`: the registered bugs it shows,
by signature or MATCHES pattern) and prints programs run, skips, and divergences by kind,
split into known (with the corpus cases that matched) and unrecognised. Every program with
an unrecognised divergence is written to --out with its divergences and buckets, for
triage: each must become a registered upstream bug (a corpus case) or a harness fix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fixes  # noqa: E402
from fuzz.backends.registry import LANE_NAMES  # noqa: E402
from fuzz.buckets import bucket_of  # noqa: E402
from fuzz.campaign.example import facts_of  # noqa: E402
from fuzz.corpus import CorpusIndex, DirectoryCorpus  # noqa: E402
from fuzz.explore import explore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lane", choices=LANE_NAMES, required=True)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--fixes", default="on")
    parser.add_argument("--corpus", action="append", default=None)
    parser.add_argument("--out", default="fuzz-out/fixes-on")
    parser.add_argument(
        "--json",
        default=None,
        metavar="PATH",
        help="also write the figures as JSON: programs, unrecognised, and per corpus case "
        "the programs that showed its registered bug",
    )
    args = parser.parse_args()
    print("fixes:", fixes.apply(args.fixes), fixes.package_versions(), flush=True)
    index = CorpusIndex.of(DirectoryCorpus(c) for c in args.corpus or ["corpus"])
    out = Path(args.out) / args.lane
    out.mkdir(parents=True, exist_ok=True)
    stats: Counter = Counter()
    known: Counter = Counter()  # (kind, corpus case) -> programs
    by_bug: Counter = Counter()  # corpus case -> programs that showed its bug (any kind)
    new: Counter = Counter()  # bucket -> programs

    def on_example(generated, result) -> None:
        stats["programs"] += 1
        stats["skipped"] += sum(r.skipped is not None and not r.divergences for r in result.reports)
        stats["flaky"] += len(result.flaky)
        for r in result.reports:
            stats.update({k: v for k, v in r.counters.items() if k in ("hits", "misses")})
        facts = facts_of(generated)
        unrecognised, shown = [], set()
        for d in result.divergences:
            item = d.to_json()
            names = index.known_as(item, generated.source)
            if names:
                known.update({(d.kind, name) for name in names})
                shown.update(names)
            else:
                item["bucket"] = bucket_of(item, facts)
                unrecognised.append(item)
        by_bug.update(shown)
        for bucket in {d["bucket"] for d in unrecognised}:
            new[bucket] += 1
        if unrecognised:
            text = "\n".join(f"# {json.dumps(d)[:1500]}" for d in unrecognised)
            (out / f"{generated.case.name}.py").write_text(text + "\n" + generated.source)
        if stats["programs"] % 50 == 0:
            print(f"... {stats['programs']} programs, {sum(new.values())} unrecognised", flush=True)

    start = time.perf_counter()
    explore(
        [args.lane],
        args.examples,
        seed=args.seed,
        stop_on_first=False,
        on_example=on_example,
        case_seed=0,
    )
    wall = time.perf_counter() - start
    print(
        f"lane={args.lane} programs={stats['programs']} skipped={stats['skipped']} "
        f"flaky={stats['flaky']} hits={stats['hits']} misses={stats['misses']} "
        f"wall={wall:.0f}s ({stats['programs'] / wall:.2f} programs/s)"
    )
    print(f"known (registered) divergences: {sum(known.values())} (kind, corpus case)-programs")
    for (kind, name), n in sorted(known.items()):
        print(f"  {kind:<28} {n:4d}  {name}")
    print(f"unrecognised buckets: {len(new)} ({sum(new.values())} bucket-programs)")
    for bucket, n in new.most_common():
        print(f"  {n:4d}  {bucket}")
    print(f"programs with unrecognised divergences written to {out}/")
    if args.json:
        figures = {
            "lane": args.lane,
            "seed": args.seed,
            "fixes": args.fixes,
            "programs": stats["programs"],
            "skipped": stats["skipped"],
            "unrecognised_programs": sum(new.values()),
            "unrecognised_buckets": sorted(new),
            "programs_by_registered_bug": dict(sorted(by_bug.items())),
        }
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
