"""Hit rate, soundness and lookup cost of Thunder's cache: stock symbolic values, symbolic
values with the `thunder-symbolic-cache` fix, and `cache="constant values"`.

    python benchmarks/bench_thunder_cache.py [--reps 30] [--rounds 2] [--sequences a,b,...]

The fix is a process-wide monkeypatch, so each mode runs in its own child process (this
script with `--child MODE`); the parent prints one table. For every call sequence:

* entries: cache misses (= traces compiled); hits and hit rate over the calls;
* wrong: calls whose result differs from eager (value, shape or dtype);
* stale: hits whose computation trace differs from a fresh trace of those inputs
  (on CPU the torch executor re-broadcasts at run time, so a stale trace can still give
  the right numbers: `wrong` undercounts the unsound hits, `stale` does not);
* lookup us/call: after the sequence, the time Thunder's cache lookup takes for each
  call's inputs with the final cache (prologues tried newest first until one passes,
  exactly as in `get_computation_and_inputs`), median of --reps, averaged over the calls;
* compile ms: median wall time of a first call (trace, transforms, run) of a fresh jit, over
  the sequence's first 5 inputs, after a warm-up.

Each mode runs --rounds times (alternating order); timings are the minimum over rounds.
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


def run_mode(mode: str, reps: int, only: list[str]) -> list[dict]:
    import warnings

    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(ROOT))
    from fixes.compat_thunder_named_tensor import import_thunder

    thunder = import_thunder()
    if mode == "symbolic-fixed":
        import fixes

        fixes.apply(["thunder-symbolic-cache"])
    cache = "constant values" if mode == "constant" else "symbolic values"
    rows = []
    for name, (fn, calls) in sequences().items():
        if only and name not in only:
            continue
        # Compile time: fresh jits of the first calls (after a warm-up), same samples in
        # every mode, so the fix's tracing overhead shows.
        thunder.jit(fn, cache=cache)(*calls[0])
        compile_times = []
        for args in calls[:COMPILE_SAMPLES]:
            t0 = time.perf_counter()
            thunder.jit(fn, cache=cache)(*args)
            compile_times.append(time.perf_counter() - t0)

        jf = thunder.jit(fn, cache=cache)
        wrong = stale = 0
        for args in calls:
            misses_before = thunder.cache_misses(jf)
            out = jf(*args)
            if thunder.cache_misses(jf) == misses_before:
                fresh = thunder.jit(fn, cache=cache)
                fresh(*args)
                if _signature(thunder.last_traces(jf)[0]) != _signature(
                    thunder.last_traces(fresh)[0]
                ):
                    stale += 1
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
                "wrong": wrong,
                "stale": stale,
                "lookup_us": 1e6 * statistics.mean(lookup),
                "compile_ms": 1e3 * statistics.median(compile_times),
            }
        )
    return rows


# ------------------------------------------------------------------------------------
# Parent: all modes, one table
# ------------------------------------------------------------------------------------


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
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [s for s in args.sequences.split(",") if s]
    if args.child:
        print("ROWS " + json.dumps(run_mode(args.child, args.reps, only)))
        return

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("FUZZ_FIXES", None)
    # The machine may be shared: modes run in alternating order over the rounds, and each
    # timing is the minimum over the rounds (counts are deterministic and must agree).
    merged: dict[tuple[str, str], dict] = {}
    for r in range(max(1, args.rounds)):
        for mode in MODES if r % 2 == 0 else reversed(MODES):
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                mode,
                "--reps",
                str(args.reps),
            ]
            if only:
                cmd += ["--sequences", ",".join(only)]
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("ROWS ")]
            if proc.returncode != 0 or not lines:
                sys.exit(f"{mode} failed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
            for row in json.loads(lines[-1][5:]):
                key = (row["sequence"], row["mode"])
                if key not in merged:
                    merged[key] = row
                    continue
                first = merged[key]
                for k in ("entries", "hits", "wrong", "stale"):
                    if first[k] != row[k]:
                        sys.exit(f"{key}: {k} differs between rounds ({first[k]} vs {row[k]})")
                for k in ("lookup_us", "compile_ms"):
                    first[k] = min(first[k], row[k])
    rows = list(merged.values())

    header = (
        f"{'sequence':<16} {'mode':<15} {'calls':>5} {'entries':>7} {'hits':>5} {'hit rate':>8} "
        f"{'wrong':>5} {'stale':>5} {'lookup us/call':>14} {'compile ms':>10}"
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
            f"{r['hits'] / r['calls']:>8.0%} {r['wrong']:>5} {r['stale']:>5} "
            f"{r['lookup_us']:>14.1f} {r['compile_ms']:>10.1f}"
        )


def sequences_order(rows):
    seen = []
    for r in rows:
        if r["sequence"] not in seen:
            seen.append(r["sequence"])
    return seen


if __name__ == "__main__":
    main()
