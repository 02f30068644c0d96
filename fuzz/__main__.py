"""The command line: `python -m fuzz replay|repro|nightly ...`.

    python -m fuzz replay PATH... [--fixes on|off|NAMES] [--lanes thunder,exir]
                          [--devices cpu,cuda] [--json FILE|-] [--seed N] [--isolate]
                          [--corpus DIR]
    python -m fuzz nightly [--budget SECONDS] [--lanes LANES] [--devices cpu]
                           [--workers auto|N] [--hypothesis-seed N] [--out DIR]
                           [--into DIR] [--fixes ...] [--max-examples N]
                           [--database DIR|redis://HOST:PORT/DB|none]
                           [--engine local|ray] [--ray-address auto|HOST:PORT]
    python -m fuzz repro CASE... [--out DIR] [--no-run]

`--fixes` defaults to $FUZZ_FIXES, else "on"; `--speedups on|off|LANES` (both commands) to
$FUZZ_SPEEDUPS, else "on". See fuzz/replay.py and
fuzz/campaign/nightly.py for what each prints, writes and exits with.
"""

from __future__ import annotations

import argparse
import sys

from fuzz.defaults import (
    EXAMPLE_TIMEOUT_S,
    MAX_CALLS,
    MAX_OPS,
    MIN_SHRINK_BUDGET_S,
    NIGHTLY_BUDGET_S,
    NIGHTLY_LANES,
)


def _csv(value: str) -> tuple[str, ...]:
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def _workers(value: str) -> int | str:
    if value == "auto":
        return value
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected 'auto' or a number") from None
    if n < 1:
        raise argparse.ArgumentTypeError("needs at least 1 worker")
    return n


def _positive(value: str) -> float:
    v = float(value)
    if v <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return v


def _common(p: argparse.ArgumentParser, lanes: tuple[str, ...] = ("thunder", "exir")) -> None:
    p.add_argument(
        "--fixes",
        default=None,
        help='"on" (every fix), "off", or fix names a,b (default: $FUZZ_FIXES, else on)',
    )
    p.add_argument(
        "--speedups",
        default=None,
        metavar="on|off|LANES",
        help="our pure-overhead patches of Thunder and torch.export (fuzz/speedups.py): "
        '"on", "off" (the stock stacks) or lane names a,b (default: $FUZZ_SPEEDUPS, '
        "else on)",
    )
    p.add_argument(
        "--lanes",
        type=_csv,
        default=lanes,
        help=f"comma-separated lanes (default {','.join(lanes)})",
    )
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE in every process that runs cases, after the fixes "
        "(e.g. tests.crash_ops, which swaps in a crashing test lane); one that cannot "
        "be imported is a usage error (exit 2)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    r = sub.add_parser("replay", help="run case files and report pass/divergence per lane/device")
    r.add_argument("paths", nargs="+", help="case files or directories of case files")
    _common(r)
    r.add_argument(
        "--devices",
        type=_csv,
        default=None,
        help="comma-separated devices (default: cpu, and cuda when present)",
    )
    r.add_argument(
        "--json",
        metavar="FILE|-",
        default=None,
        help="also write the results as JSON to FILE (- for stdout)",
    )
    r.add_argument("--seed", type=int, default=0, help="seed for calls() (default 0)")
    r.add_argument(
        "--isolate",
        action="store_true",
        help="run each case/lane/device in its own process: crashes and hangs "
        "become <lane>.crash divergences instead of ending the replay",
    )
    r.add_argument(
        "--timeout",
        type=_positive,
        default=EXAMPLE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"with --isolate: a program running longer is a hang (default {EXAMPLE_TIMEOUT_S:g})",
    )
    r.add_argument(
        "--corpus",
        action="append",
        default=None,
        metavar="DIR",
        help="corpus folder(s) whose registered bugs name known divergences "
        "(known_as in the JSON; default corpus/)",
    )

    x = sub.add_parser(
        "repro",
        help="write each case as a standalone repro.py (stock stack, no harness) and ISSUE.md",
    )
    x.add_argument("paths", nargs="+", help="case files or directories of case files")
    x.add_argument(
        "--out",
        default="repros",
        help="output folder: OUT/CASE/repro.py and ISSUE.md (default repros/)",
    )
    x.add_argument(
        "--no-run",
        action="store_true",
        help="write each case's first candidate script without running any (no search: "
        "the stage is not localized and ISSUE.md has no actual output)",
    )
    x.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="cases exported at once, each in its own process (default 1)",
    )

    n = sub.add_parser("nightly", help="time-boxed fuzz campaign with crash isolation")
    _common(n, NIGHTLY_LANES)
    n.add_argument(
        "--budget",
        type=_positive,
        default=NIGHTLY_BUDGET_S,
        metavar="SECONDS",
        help=f"wall-clock budget for exploring (default {NIGHTLY_BUDGET_S:g}); shrinking and the "
        "report take a little longer",
    )
    n.add_argument("--devices", type=_csv, default=("cpu",), help="comma-separated (default cpu)")
    n.add_argument("--workers", type=_workers, default="auto", help="auto or N worker processes")
    n.add_argument(
        "--hypothesis-seed",
        type=int,
        default=None,
        help="seed of the whole campaign (default: random, printed in the report)",
    )
    n.add_argument("--out", default="fuzz-out", help="output folder (default fuzz-out/)")
    n.add_argument(
        "--into",
        default=None,
        metavar="DIR",
        help="write new cases into DIR (e.g. corpus/) instead of OUT/cases/",
    )
    n.add_argument(
        "--corpus",
        action="append",
        default=None,
        metavar="DIR",
        help="corpus folder(s) that define known findings (default corpus/)",
    )
    n.add_argument(
        "--max-examples",
        type=int,
        default=None,
        help="stop after N explored programs in all (split over workers)",
    )
    n.add_argument(
        "--database",
        default=None,
        metavar="DIR|URL|none",
        help="Hypothesis example database: a folder, redis://HOST:PORT/DB (shared by every "
        "worker and night) or none (default OUT/hypothesis-db)",
    )
    n.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: worker processes on this machine (default); ray: Ray actors on a "
        "cluster (pip install '.[cluster]')",
    )
    n.add_argument(
        "--ray-address",
        default=None,
        metavar="auto|HOST:PORT",
        help="with --engine ray: the cluster to join (default: start a local Ray instance)",
    )
    n.add_argument(
        "--example-timeout",
        type=_positive,
        default=EXAMPLE_TIMEOUT_S,
        metavar="SECONDS",
        help="a program running longer is a hang: the worker is killed and "
        f"replaced, and the program recorded as <lane>.crash (default {EXAMPLE_TIMEOUT_S:g})",
    )
    n.add_argument(
        "--shrink-budget",
        type=_positive,
        default=None,
        metavar="SECONDS",
        help="time one worker may spend shrinking one finding "
        f"(default: a quarter of the budget, at least {MIN_SHRINK_BUDGET_S:g} s)",
    )
    n.add_argument(
        "--max-ops",
        type=int,
        default=MAX_OPS,
        help=f"ops per generated program (default {MAX_OPS})",
    )
    n.add_argument(
        "--max-calls", type=int, default=MAX_CALLS, help=f"calls per case (default {MAX_CALLS})"
    )
    n.add_argument(
        "--op-focus",
        choices=("on", "off"),
        default="on",
        help="draw more often the ops this worker has drawn least this night "
        "(fuzz/campaign/focus.py; default on); off: each program's focus ops are drawn "
        "uniformly",
    )
    n.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if args.command == "replay":
        from fuzz.replay import main as replay_main

        return replay_main(args)
    if args.command == "repro":
        from fuzz.repro_export import main as repro_main

        return repro_main(args)
    from fuzz.campaign.engines import EngineError
    from fuzz.campaign.nightly import main as nightly_main

    try:
        engine = build_engine(args)
    except EngineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return nightly_main(args, engine)


def build_engine(args):
    """The engine `--engine` names, built here and handed to the campaign (which never
    imports an optional one itself); it joins its cluster only when the campaign opens it."""
    if args.engine == "ray":
        from fuzz.extra import ray_engine_at

        return ray_engine_at(args.ray_address)
    from fuzz.campaign.local import LocalEngine

    return LocalEngine()


if __name__ == "__main__":
    sys.exit(main())
