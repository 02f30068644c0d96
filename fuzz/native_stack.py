"""The native stack of a process that dies in a compiled kernel, and the kernel it names.

Python's faulthandler prints the Python stack of a dying process (fuzz.procs.crash_site):
for a SIGSEGV or an abort inside ExecuTorch's runtime that is `Method.execute`, whatever
kernel died. ExecuTorch's event tracer cannot say either: its ETDump lives in the dying
process's memory and is never written. The kernel is on the native stack, and the pip
runtime exports its kernels' symbols (`torch::executor::native::index_Tensor_out` in
libexecutorch_kernels_optimized.so), so a fatal-signal handler that prints the native
stack before faulthandler's names it.

The handler is C, compiled once per machine with the system's C compiler into the user's
cache directory (a handler written in Python, through ctypes, needs the GIL: a kernel that
dies on a thread-pool thread while the calling thread holds it would hang the process
instead of letting it die). It prints `--- native stack ---`, the frames
(`backtrace_symbols_fd`, async-signal-safe), `--- end native stack ---`, then re-raises
the signal to the handler it replaced (faulthandler's, which dumps the Python stack and
dies by the same signal). Without a C compiler nothing is installed and `install` says
why; a death then has no kernel, as before.

`died_in` reads the block back: the innermost frame that is an ExecuTorch kernel (an
`*_out` function of `torch::executor::native`), and `kernel_op` maps it to the program's
op ("amax_out" -> "aten.amax.default"). Torch-free: the parent reads a child's stderr.
"""

from __future__ import annotations

import ctypes
import faulthandler
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

BEGIN, END = "--- native stack ---", "--- end native stack ---"

SOURCE = r"""
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const int fatal[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
static struct sigaction previous[sizeof(fatal) / sizeof(fatal[0])];

static int out = 2;
static void say(const char *s) { (void)!write(out, s, strlen(s)); }

static void on_fatal(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  say("\n--- native stack ---\n");
  backtrace_symbols_fd(frames, n, out);
  say("--- end native stack ---\n");
  for (unsigned i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
    if (fatal[i] == sig) sigaction(sig, &previous[i], NULL);
  raise(sig); /* the replaced handler (faulthandler's), or the default: the process dies */
}

int fuzz_native_stack_install(int fd) {
  void *warm[1];
  out = fd;
  backtrace(warm, 1); /* loads libgcc now: backtrace may allocate on its first call */
  for (unsigned i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
    struct sigaction on;
    memset(&on, 0, sizeof on);
    on.sa_handler = on_fatal;
    on.sa_flags = SA_NODEFER | SA_ONSTACK;
    sigemptyset(&on.sa_mask);
    if (sigaction(fatal[i], &on, &previous[i]) != 0) return -1;
  }
  return 0;
}
"""

_installed: str | None = None  # "" once installed, else why not
_stream = None  # the process's stderr as it was at install (module docstring)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fuzz-harness"


def _library() -> Path:
    """The compiled handler, built on first use (atomically: workers start together)."""
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:16]
    lib = _cache_dir() / f"native-stack-{digest}.so"
    if lib.exists():
        return lib
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise OSError("no C compiler (cc or gcc) on PATH")
    lib.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
        src, out = Path(tmp) / "native_stack.c", Path(tmp) / lib.name
        src.write_text(SOURCE)
        done = subprocess.run(
            [cc, "-shared", "-fPIC", "-O1", "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            raise OSError(f"{cc} failed: {done.stderr.strip()[:300]}")
        os.replace(out, lib)
    return lib


def install() -> str:
    """Install the handler in this process, once ("" when installed, else why not).

    Both reports go to the stderr the process has now, kept open on a file descriptor of
    its own: the EXIR runtime points fd 2 at its log file while a method runs (fuzz/
    backends/exir/runtime.py), and a death there left faulthandler's dump in that file.
    So faulthandler, when enabled, is re-enabled on that descriptor first, and the native
    handler, installed after it, runs before it."""
    global _installed, _stream
    if _installed is None:
        try:
            handler = ctypes.CDLL(str(_library()))
            _stream = os.fdopen(os.dup(2), "w")
            if faulthandler.is_enabled():
                faulthandler.enable(file=_stream, all_threads=True)
            ok = handler.fuzz_native_stack_install(_stream.fileno()) == 0
            _installed = "" if ok else "sigaction failed"
        except (OSError, subprocess.SubprocessError) as e:
            _installed = f"native stacks unavailable: {e}"
    return _installed


# A frame of backtrace_symbols_fd: "lib.so(_ZN5torch8executor6native8amax_outE...+0x160)[0x...]"
_KERNEL = re.compile(r"\(_ZN5torch8executor6native(\d+)(\w+)")


def died_in(text: str) -> str | None:
    """The innermost ExecuTorch kernel on the last native stack in `text` ("amax_out",
    "opt_mul_out", "index_Tensor_out"); None without such a frame or stack."""
    start = (text or "").rfind(BEGIN)
    if start < 0:
        return None
    for line in text[start:].splitlines()[1:]:
        if line.startswith(END):
            break
        m = _KERNEL.search(line)
        if m:
            name = m[2][: int(m[1])]
            if "_out" in name:
                return name
    return None


def kernel_op(kernel: str, ops: Iterable[str]) -> str | None:
    """The op among the program's `ops` (fuzz.facts "ops": "aten.amax.default", ...) that
    `kernel` implements: the longest op name the kernel's name starts with ("index_put_out"
    is index_put, not index), the overload the kernel names when several are held
    ("mul_scalar_out"), else the main one (default or Tensor: "opt_mul_out"). None when
    the program holds no such op."""
    name = kernel.removeprefix("opt_").lower()
    best: list[str] = []
    best_len = -1
    for op in sorted({o for o in ops if ":" not in o}):
        parts = op.split(".")
        if len(parts) < 2:
            continue
        base = parts[1].lower()
        if name == f"{base}_out" or name.startswith(f"{base}_"):
            if len(base) > best_len:
                best, best_len = [op], len(base)
            elif len(base) == best_len:
                best.append(op)
    if not best:
        return None
    overloads = {op: (op.split(".")[2] if op.count(".") >= 2 else "") for op in best}
    named = [op for op, o in overloads.items() if o not in ("", "default") and o.lower() in name]
    # A kernel that names no overload is the op's main one: mul_out is mul.Tensor's.
    main = [op for op, o in overloads.items() if o in ("", "default", "Tensor")]
    return (named or main or best)[0]
