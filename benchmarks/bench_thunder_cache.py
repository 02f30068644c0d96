"""Hit rate, soundness and lookup cost of Thunder's cache: stock symbolic values, symbolic
values with the `thunder-symbolic-cache` fix, and `cache="constant values"`.

    python benchmarks/bench_thunder_cache.py [--reps 30] [--rounds 2] [--sequences a,b,...]
                                             [--programs 150] [--seed 5]

The fix is a process-wide monkeypatch, so each mode runs in its own child process (this
script with `--child MODE`); the parent prints the tables, all modes side by side.

Hand-written call sequences (first table), per sequence and mode:

* entries: cache misses (= traces compiled); hits and hit rate over the calls;
* missed legal: misses whose computation trace equals an entry already in the cache
  (the Thunder lane's "missed legal hits": `fuzz.backends.thunder.oracles.cache.matches_any`);
* unsound: hits whose traces (initial and execution) differ from a fresh trace of those
  inputs, or whose fresh trace raises (the lane's `thunder.unsound-hit` oracle);
* wrong: calls whose result differs from eager (value, shape or dtype);
* stale: hits whose computation trace's structure (symbols with argument kinds) differs
  from a fresh trace's (on CPU the torch executor re-broadcasts at run time, so a stale
  trace can still give the right numbers: `wrong` undercounts the unsound hits);
* lookup us/call: after the sequence, the time Thunder's cache lookup takes for each
  call's inputs with the final cache (prologues tried newest first until one passes,
  exactly as in `get_computation_and_inputs`), median of --reps, averaged over the calls;
* compile ms: median wall time of a first call (trace, transforms, run) of a fresh jit, over
  the sequence's first 5 inputs, after a warm-up.

Generated programs (second table): --programs programs of the Thunder lane's strategy
(`fuzz.strategies.cases`, Hypothesis seeded with --seed, calls with case seed 0, the same
programs in every mode), each run by the Thunder lane itself (`ThunderLane.run`, no
default-cache control), summed: programs, calls, hits, misses, missed legal hits (also
per program) and unsound hits. `--programs 0` skips it.

`--why N` (diagnosis, no table): N generated programs with the fix; for each missed legal
hit, the check that rejected the call in the entry with the same trace (its prologue's
error: the replayed decision that failed, e.g. `bool(i0 == 1) is False`, a
`fake_meta[op](...)` replay of a `meta_adaptor` meta, an `..._check(...)` or-chain of a
Thunder shape check, a stock metadata check), counted by form with one example each.
This is how issue #21's over-specialisations were found.

Each mode runs --rounds times (alternating order); timings are the minimum over rounds,
counts must agree between rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("symbolic-stock", "symbolic-fixed", "constant")
COMPILE_SAMPLES = 5


# ------------------------------------------------------------------------------------
# Programs and call sequences
# ------------------------------------------------------------------------------------


def add(a, b):
    return a + b


def branch(a):
    return a * 2 if a.shape[0] == 2 else a + 1


def loop(a):
    for i in range(a.shape[0]):
        a = a + i
    return a


def scalar_branch(a, s):
    if s > 0:
        return a * s
    return a - s


def stack_rows(a):
    import torch

    return torch.stack([a, a], dim=1)


def expand_new_dim(a, n):
    return a.unsqueeze(0).expand(n, *a.shape)


def custom_head(a, n):
    import torch

    import fuzz.custom_ops  # noqa: F401  (registers torch.ops.fuzz.*)

    return torch.ops.fuzz.head(a, n) * 2


def mlp(x, w1, w2):
    import torch.nn.functional as F

    return F.linear(F.linear(x, w1).relu(), w2).softmax(-1)


def sequences():
    import torch

    g = torch.Generator().manual_seed(0)

    def R(*shape):
        return torch.randn(*shape, generator=g)

    w1, w2 = R(16, 8), R(4, 16)
    keep_shapes = [(2, 3), (4, 5), (3, 7), (8, 2), (5, 5), (6, 9), (7, 4), (9, 3)] * 2
    return {
        # Broadcast (n, m) + (m,), no size-1 dims: every decision is kept.
        "add_bcast_keep": (add, [(R(n, m), R(m)) for n, m in keep_shapes]),
        # Alternates (n, m) + (m,) and (n, 1) + (m,): the broadcast decisions flip.
        "add_bcast_flip": (
            add,
            [
                (R(n, m), R(m)) if i % 2 == 0 else (R(n, 1), R(m))
                for i, (n, m) in enumerate(keep_shapes)
            ],
        ),
        # `a.shape[0] == 2` alternates between True and False.
        "branch_flip": (
            branch,
            [(R(2 if i % 2 == 0 else 3 + i % 5, 4 + i % 3),) for i in range(16)],
        ),
        # range(a.shape[0]) unrolls the loop: one trace per distinct a.shape[0] is required.
        "loop_unrolled": (loop, [(R(2 + i % 4, 3 + i),) for i in range(16)]),
        # `s > 0` on a float input, s changes on every call.
        "scalar_branch": (scalar_branch, [(R(3, 4), 0.5 + i) for i in range(16)]),
        # Batch sizes 1..16 through linear/relu/linear/softmax (batch 1 flips `== 1` checks).
        "mlp_batch": (mlp, [(R(b, 8), w1, w2) for b in range(1, 17)]),
        # Issue #21's legal hits: the trace keeps every size as it is, so one entry serves
        # every call; sizes 1 among them (the `== 1` operands of Thunder's shape checks).
        "stack_size1": (stack_rows, [(R(1 + i % 3, 1 + i % 2),) for i in range(16)]),
        "expand_new_dim": (expand_new_dim, [(R(1 + i % 3), 1 + i % 4) for i in range(16)]),
        # A custom op (`meta_adaptor` meta): head(a, n) is (n,)-shaped for any size of a.
        "custom_head": (custom_head, [(R(2 + i % 5, 3), 4) for i in range(16)]),
    }


# ------------------------------------------------------------------------------------
# Child: one mode
# ------------------------------------------------------------------------------------


def _signature(trace):
    import re

    from thunder.core.proxies import NumberProxy, TensorProxy
    from thunder.core.pytree import tree_flatten

    def kind(x):
        if isinstance(x, TensorProxy):
            return f"T{x.ndim}:{x.dtype}"
        if isinstance(x, NumberProxy):
            return f"N:{x.python_type.__name__}"
        return re.sub(r" at 0x[0-9a-f]+", "", repr(x))

    out = []

    def walk(bsyms, depth):
        for b in bsyms:
            args, _ = tree_flatten((b.args, b.kwargs))
            outs, _ = tree_flatten(b.output)
            out.append((depth, b.sym.name, tuple(map(kind, args)), tuple(map(kind, outs))))
            walk(b.subsymbols, depth + 1)

    walk(trace.bound_symbols, 0)
    return out


def _same(x, y) -> bool:
    import torch

    return x.shape == y.shape and x.dtype == y.dtype and torch.allclose(x, y, atol=1e-5, rtol=1e-5)


def _lookup_seconds(thunder, jf, args, reps: int) -> float:
    """Thunder's cache lookup for `args` against the current cache, without side effects."""
    from thunder import _cache_info_ctx, _get_cache_info

    cd, cs = thunder.compile_data(jf), thunder.compile_stats(jf)
    times = []
    for _ in range(reps):
        tok = _cache_info_ctx.set({})
        try:
            cd.populate_cache_info(_get_cache_info(), *args)
            t0 = time.perf_counter()
            for entry in reversed(cs.interpreter_cache):
                try:
                    entry.prologue_fn(*args)
                    break
                except Exception:
                    continue
            times.append(time.perf_counter() - t0)
        finally:
            _cache_info_ctx.reset(tok)
    return statistics.median(times)


def _thunder_for(mode: str):
    """Thunder with the mode's fix state (nothing applied but the fix in symbolic-fixed)."""
    import warnings

    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(ROOT))
    from fuzz.backends.thunder.lane import _thunder

    thunder = _thunder()  # the lane's Thunder: custom ops registered, speedups installed
    if mode == "symbolic-fixed":
        import fixes

        fixes.apply(["thunder-symbolic-cache"])
    return thunder, ("constant values" if mode == "constant" else "symbolic values")


def run_mode(mode: str, reps: int, only: list[str]) -> list[dict]:
    from fuzz.backends.thunder.lane import _executors
    from fuzz.backends.thunder.oracles.cache import matches_any, unsound_hit

    thunder, cache = _thunder_for(mode)

    def jit(fn):
        # The lane's executors: custom_op_ex runs the harness's custom ops (custom_head).
        return thunder.jit(fn, cache=cache, executors=_executors(thunder))

    def texts(jf):
        traces = thunder.last_traces(jf)
        return str(traces[0]), str(traces[-1])

    rows = []
    for name, (fn, calls) in sequences().items():
        if only and name not in only:
            continue
        # Compile time: fresh jits of the first calls (after a warm-up), same samples in
        # every mode, so the fix's tracing overhead shows.
        jit(fn)(*calls[0])
        compile_times = []
        for args in calls[:COMPILE_SAMPLES]:
            t0 = time.perf_counter()
            jit(fn)(*args)
            compile_times.append(time.perf_counter() - t0)

        jf = jit(fn)
        wrong = stale = unsound = missed_legal = 0
        entries: list[str] = []
        for args in calls:
            misses_before = thunder.cache_misses(jf)
            out = jf(*args)
            if thunder.cache_misses(jf) == misses_before:
                fresh = jit(fn)
                try:
                    fresh(*args)
                except Exception:
                    unsound += 1  # the cache ran a trace a fresh jit cannot make
                else:
                    if _signature(thunder.last_traces(jf)[0]) != _signature(
                        thunder.last_traces(fresh)[0]
                    ):
                        stale += 1
                    unsound += unsound_hit(texts(jf), texts(fresh), "", "cpu") is not None
            else:
                initial = texts(jf)[0]
                missed_legal += bool(entries) and matches_any(initial, entries)
                entries.append(initial)
            if not _same(out, fn(*args)):
                wrong += 1
        lookup = [_lookup_seconds(thunder, jf, args, reps) for args in calls]
        rows.append(
            {
                "sequence": name,
                "mode": mode,
                "calls": len(calls),
                "entries": thunder.cache_misses(jf),
                "hits": thunder.cache_hits(jf),
                "missed_legal": missed_legal,
                "unsound": unsound,
                "wrong": wrong,
                "stale": stale,
                "lookup_us": 1e6 * statistics.mean(lookup),
                "compile_ms": 1e3 * statistics.median(compile_times),
            }
        )
    return rows


def run_generated(
    mode: str, programs: int, seed: int, night: bool = False, lookup_reps: int = 0
) -> dict:
    """The Thunder lane over `programs` generated programs (see the module docstring);
    `night`: drawn as a default night's first worker draws them (benchmarks.draws.
    night_draws: the nightly profile, rounds, the op focus). With `lookup_reps`, each
    program's calls are also run on a jit of their own, and Thunder's cache lookup is
    timed for each call against the final cache (the fix's prologue checks, custom-op
    meta replays included): `lookup_us` is the mean over the calls."""
    from collections import Counter

    thunder, cache = _thunder_for(mode)
    from benchmarks.draws import each_case, night_draws
    from fuzz.backends.eager import run_eager
    from fuzz.backends.thunder import ThunderLane
    from fuzz.backends.thunder.lane import _executors
    from fuzz.defaults import MAX_OPS
    from fuzz.observe import observe_call
    from fuzz.tensors import copy_args, materialize

    lane = ThunderLane(cache=cache, control=False)
    totals: Counter = Counter()

    def run(generated):
        calls = materialize(generated.case, 0, "cpu")
        report = lane.run(generated.case, calls, run_eager(generated.case, calls), "cpu")
        totals["programs"] += 1
        totals["skipped"] += report.skipped is not None
        for k in ("calls-checked", "hits", "misses", "missed-legal-hits"):
            totals[k] += report.counters.get(k, 0)
        totals["unsound-hits"] += sum(d.kind == "thunder.unsound-hit" for d in report.divergences)
        if lookup_reps:
            jf = thunder.jit(generated.case.program, cache=cache, executors=_executors(thunder))
            ok = [args for args in calls if observe_call(jf, copy_args(args)).error is None]
            lookups.extend(_lookup_seconds(thunder, jf, copy_args(a), lookup_reps) for a in ok)

    lookups: list[float] = []
    t0 = time.perf_counter()
    if night:
        for generated in night_draws(programs, seed, "thunder"):
            run(generated)
    else:
        each_case(run, programs, "thunder", seed=seed, max_ops=MAX_OPS)
    out = {"mode": mode, "seconds": time.perf_counter() - t0, **totals}
    if lookups:
        out["lookup_us"] = 1e6 * statistics.mean(lookups)
    return out


# ------------------------------------------------------------------------------------
# Parent: all modes, one table
# ------------------------------------------------------------------------------------


def why_missed(programs: int, seed: int, night: bool = False) -> None:
    """Prints, for each missed legal hit of the fixed cache, the check that rejected the
    call in the entry whose trace it has (see the module docstring)."""
    import re
    from collections import Counter

    thunder, cache = _thunder_for("symbolic-fixed")
    from thunder import _cache_info_ctx, _get_cache_info

    from benchmarks.draws import each_case
    from fuzz.backends.thunder.lane import _executors
    from fuzz.backends.thunder.oracles.cache import normalize_trace
    from fuzz.defaults import MAX_OPS
    from fuzz.observe import observe_call
    from fuzz.tensors import copy_args, materialize

    def rejection(jf, entry, args) -> str:
        # Thunder's lookup, as in _lookup_seconds, on one entry: its prologue's error.
        tok = _cache_info_ctx.set({})
        try:
            thunder.compile_data(jf).populate_cache_info(_get_cache_info(), *args)
            entry.prologue_fn(*args)
        except Exception as e:
            return f"{type(e).__name__}: {e}"
        finally:
            _cache_info_ctx.reset(tok)
        return "(the entry's prologue passes)"

    forms: Counter = Counter()
    example: dict = {}
    totals: Counter = Counter()

    def run(generated):
        totals["programs"] += 1
        calls = materialize(generated.case, 0, "cpu")
        fn = generated.case.program
        jf = thunder.jit(fn, cache=cache, executors=_executors(thunder))
        entries = thunder.compile_stats(jf).interpreter_cache
        seen: list = []  # (cache entry, normalized computation trace)
        for i, args in enumerate(calls):
            misses, before = thunder.cache_misses(jf), list(entries)
            if observe_call(jf, copy_args(args)).error or thunder.cache_misses(jf) == misses:
                continue
            trace = normalize_trace(str(thunder.last_traces(jf)[0]))
            same = [e for e, t in seen if t == trace]
            if same:
                totals["missed legal hits"] += 1
                text = rejection(jf, same[0], copy_args(args))
                form = re.sub(r"\d+", "N", re.sub(r"\b[itfx]\d+\b", "#", text))[:200]
                forms[form] += 1
                example.setdefault(form, (text[:300], generated.source, i))
            seen += [(e, trace) for e in entries if e not in before]

    if night:
        from benchmarks.draws import night_draws

        for generated in night_draws(programs, seed, "thunder"):
            run(generated)
    else:
        each_case(run, programs, "thunder", seed=seed, max_ops=MAX_OPS)
    print(dict(totals))
    for form, n in forms.most_common():
        text, source, call = example[form]
        body = [ln for ln in source.splitlines() if ln.startswith("    v") or "if " in ln]
        print(f"{n:4d}  {form}\n      e.g. call {call}: {text}\n      {body[:6]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reps", type=int, default=30, help="repetitions per lookup timing (median)"
    )
    parser.add_argument("--sequences", default="", help="comma-separated subset of sequences")
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="child runs per mode, in alternating order; timings are the minimum",
    )
    parser.add_argument(
        "--programs", type=int, default=150, help="generated programs per mode (0: none)"
    )
    parser.add_argument("--seed", type=int, default=5, help="Hypothesis seed of the programs")
    parser.add_argument(
        "--why",
        type=int,
        default=0,
        metavar="N",
        help="diagnose: the check behind each missed legal hit of the fix on N programs",
    )
    parser.add_argument(
        "--night",
        action="store_true",
        help="draw the generated programs as a default night's first worker draws them "
        "(the nightly profile, rounds, the op focus), not with the plain strategy",
    )
    parser.add_argument(
        "--seeds",
        default="",
        help="comma-separated Hypothesis seeds for the generated programs (default: --seed)",
    )
    parser.add_argument(
        "--plugin",
        default=None,
        metavar="MODULE",
        help="import MODULE in each mode's process first (a fault plugin: tests/faults/)",
    )
    parser.add_argument(
        "--lookup-reps",
        type=int,
        default=0,
        metavar="N",
        help="with the generated programs: time the cache lookup of each call (median of "
        "N), against a jit of its own run through the calls",
    )
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--child-generated", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [s for s in args.sequences.split(",") if s]
    if args.why:
        why_missed(args.why, args.seed, args.night)
        return
    if args.child:
        if args.plugin:
            import importlib

            sys.path.insert(0, str(ROOT))
            _thunder_for("constant")  # Thunder imported as the lane imports it, first
            importlib.import_module(args.plugin)
        if args.child_generated:
            result = run_generated(
                args.child, args.programs, args.seed, args.night, args.lookup_reps
            )
            print("GENERATED " + json.dumps(result))
        else:
            print("ROWS " + json.dumps(run_mode(args.child, args.reps, only)))
        return

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("FUZZ_FIXES", None)

    def child(mode: str, *extra: str) -> str:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, *extra]
        cmd += ["--plugin", args.plugin] if args.plugin else []
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"{mode} failed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
        return proc.stdout

    def last_line(out: str, tag: str, mode: str):
        lines = [ln for ln in out.splitlines() if ln.startswith(tag + " ")]
        if not lines:
            sys.exit(f"{mode}: no {tag} line in the child's output")
        return json.loads(lines[-1][len(tag) + 1 :])

    if args.night:  # the night's programs only: no hand-written sequences
        generated_table(args, child, last_line)
        return
    # The machine may be shared: modes run in alternating order over the rounds, and each
    # timing is the minimum over the rounds (counts are deterministic and must agree).
    merged: dict[tuple[str, str], dict] = {}
    for r in range(max(1, args.rounds)):
        for mode in MODES if r % 2 == 0 else reversed(MODES):
            extra = ["--reps", str(args.reps)] + (["--sequences", ",".join(only)] if only else [])
            for row in last_line(child(mode, *extra), "ROWS", mode):
                key = (row["sequence"], row["mode"])
                if key not in merged:
                    merged[key] = row
                    continue
                first = merged[key]
                for k in ("entries", "hits", "missed_legal", "unsound", "wrong", "stale"):
                    if first[k] != row[k]:
                        sys.exit(f"{key}: {k} differs between rounds ({first[k]} vs {row[k]})")
                for k in ("lookup_us", "compile_ms"):
                    first[k] = min(first[k], row[k])
    rows = list(merged.values())

    header = (
        f"{'sequence':<16} {'mode':<15} {'calls':>5} {'entries':>7} {'hits':>5} {'hit rate':>8} "
        f"{'missed legal':>12} {'unsound':>7} {'wrong':>5} {'stale':>5} "
        f"{'lookup us/call':>14} {'compile ms':>10}"
    )
    print(header)
    print("-" * len(header))
    order = {m: i for i, m in enumerate(MODES)}
    last = None
    for r in sorted(
        rows, key=lambda r: (list(sequences_order(rows)).index(r["sequence"]), order[r["mode"]])
    ):
        if last is not None and r["sequence"] != last:
            print()
        last = r["sequence"]
        print(
            f"{r['sequence']:<16} {r['mode']:<15} {r['calls']:>5} {r['entries']:>7} {r['hits']:>5} "
            f"{r['hits'] / r['calls']:>8.0%} {r['missed_legal']:>12} {r['unsound']:>7} "
            f"{r['wrong']:>5} {r['stale']:>5} {r['lookup_us']:>14.1f} {r['compile_ms']:>10.1f}"
        )
    print()
    print("all sequences:")
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        print(
            f"  {mode:<15} missed legal {sum(r['missed_legal'] for r in mine):>3}  "
            f"unsound {sum(r['unsound'] for r in mine):>3}  "
            f"lookup us/call (mean over sequences) "
            f"{statistics.mean(r['lookup_us'] for r in mine):.1f}"
        )

    generated_table(args, child, last_line)


def generated_table(args, child, last_line) -> None:
    """Generated programs: one run per mode and seed (counts; the same programs in each
    mode), then per mode the missed legal hits per program over all seeds."""
    if args.programs <= 0:
        return
    seeds = [int(x) for x in args.seeds.split(",") if x] or [args.seed]
    modes = ("symbolic-stock", "symbolic-fixed") if args.night else MODES
    gen = []
    for seed in seeds:
        for mode in modes:
            extra = ["--child-generated", "--programs", str(args.programs), "--seed", str(seed)]
            extra += ["--night"] if args.night else []
            extra += ["--lookup-reps", str(args.lookup_reps)] if args.lookup_reps else []
            gen.append(last_line(child(mode, *extra), "GENERATED", mode) | {"seed": seed})
    how = "as a default night draws them" if args.night else "Thunder lane strategy"
    print()
    print(f"generated programs ({how}, seeds {seeds}):")
    header = (
        f"{'seed':>5} {'mode':<15} {'programs':>8} {'calls':>6} {'hits':>5} {'misses':>6} "
        f"{'missed legal':>12} {'per program':>11} {'unsound':>7} {'seconds':>7}"
    )
    print(header)
    print("-" * len(header))
    for g in gen:
        print(
            f"{g['seed']:>5} {g['mode']:<15} {g['programs']:>8} {g.get('calls-checked', 0):>6} "
            f"{g.get('hits', 0):>5} {g.get('misses', 0):>6} {g.get('missed-legal-hits', 0):>12} "
            f"{g.get('missed-legal-hits', 0) / max(1, g['programs']):>11.3f} "
            f"{g.get('unsound-hits', 0):>7} {g['seconds']:>7.0f}"
            + (f"  lookup {g['lookup_us']:.1f} us/call" if "lookup_us" in g else "")
        )
    for mode in modes:
        mine = [g for g in gen if g["mode"] == mode]
        missed = sum(g.get("missed-legal-hits", 0) for g in mine)
        programs = sum(g["programs"] for g in mine)
        print(f"  {mode:<15} {missed / max(1, programs):.3f} missed legal hits per program")


def sequences_order(rows):
    seen = []
    for r in rows:
        if r["sequence"] not in seen:
            seen.append(r["sequence"])
    return seen


if __name__ == "__main__":
    main()
