"""ExecuTorch runtime kernels for the harness's `fuzz::` custom ops, built and loaded once.

Without a runtime kernel, a program holding `torch.ops.fuzz.*` (the data-dependent ops
and the shape ops of fuzz/custom_ops.py) cannot run on the pip runtime, so the lane gave
it static checks only: no result, no under-allocation at a call, no runtime crash. That
was 38 to 47 % of an EXIR night's programs (benchmarks/journal/2026-12-05.md, seventeenth session).
`fuzz_ops.cpp` holds the `.out` kernels the lowering plans, with the Python kernels'
semantics; `load()` compiles it once per ExecuTorch build and source (a shared library
linked against the wheel's own `libexecutorch.so`, the one the pip runtime uses, so the
kernels land in the runtime's registry) and registers them in this process.

The kernels are ours, like the Python ones: not a patch of the stack under test. The
runtime's registry and planner are ExecuTorch's; a kernel that cannot fit its result in
the planned buffer fails the call as ExecuTorch's own kernels do. `state()` says what was
loaded (or why not), for the lane's `runtime` detail.

Where a build is impossible (no C++ compiler, a wheel without headers or
`libexecutorch.so`, as executorch 1.0.1's may be), `load()` returns the reason and the
lane keeps the static checks for those programs, counted as before
(`runtime-static-only`, with the reason).

The library is cached under $FUZZ_KERNEL_CACHE, else $XDG_CACHE_HOME/pt2-difffuzz, else
~/.cache/pt2-difffuzz, named by the ExecuTorch version and the source's digest; it is
written to a temporary name and renamed, so workers building at once never load half a
file.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).with_name("fuzz_ops.cpp")
OPS = (
    "fuzz::positive.out",
    "fuzz::positive_head.out",
    "fuzz::split_sign.out",
    "fuzz::head.out",
    "fuzz::bmul.out",
)
CACHE_ENV = "FUZZ_KERNEL_CACHE"
COMPILE_TIMEOUT = 300

_STATE: dict[str, Any] | None = None


def _executorch_root() -> Path:
    import executorch  # a namespace package: no __file__

    return Path(next(iter(executorch.__path__))).resolve()


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pt2-difffuzz"


def library_path() -> Path:
    """Where the library for this ExecuTorch and this source lives (built or not)."""
    version = metadata.version("executorch")
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    return cache_dir() / f"fuzz_et_kernels-{version}-{digest}.so"


def _build(target: Path) -> str | None:
    """Compile fuzz_ops.cpp into `target`; None, or why it could not be built."""
    root = _executorch_root()
    include, lib = root / "include", root / "lib"
    if not (include / "executorch/runtime/kernel/operator_registry.h").is_file():
        return f"the executorch wheel has no runtime headers ({include})"
    if not (lib / "libexecutorch.so").is_file():
        return f"the executorch wheel has no libexecutorch.so ({lib})"
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        return "no C++ compiler (c++, g++ or $CXX)"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=target.parent, suffix=".so.partial")
    os.close(fd)
    cmd = [
        compiler,
        "-std=c++17",
        "-O2",
        "-shared",
        "-fPIC",
        "-DC10_USING_CUSTOM_GENERATED_MACROS",
        f"-I{include}",
        f"-I{include / 'executorch/runtime/core/portable_type/c10'}",
        str(SOURCE),
        f"-L{lib}",
        "-lexecutorch",
        f"-Wl,-rpath,{lib}",
        "-o",
        partial,
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        os.unlink(partial)
        return f"compiling {SOURCE.name} failed: {e}"
    if done.returncode != 0:
        os.unlink(partial)
        return f"compiling {SOURCE.name} failed: {done.stderr.strip()[-600:]}"
    os.replace(partial, target)
    return None


def load() -> dict[str, Any]:
    """Build (once per cache) and register the kernels in this process; the state:
    {"loaded": path, "ops": [...]} or {"error": why}. Idempotent."""
    global _STATE
    if _STATE is not None:
        return _STATE
    try:
        # The pip runtime first: its libexecutorch.so is the registry the kernels join.
        from executorch.runtime import Runtime

        Runtime.get()
        target = library_path()
        if not target.is_file() and (why := _build(target)) is not None:
            _STATE = {"error": why}
            return _STATE
        library = ctypes.CDLL(str(target), mode=ctypes.RTLD_GLOBAL)
        status = library.fuzz_register_kernels()
        _STATE = (
            {"loaded": str(target), "ops": list(OPS)}
            if status == 0
            else {"error": f"registering the kernels failed with error {status:#x}"}
        )
    except Exception as e:  # noqa: BLE001 - reported as the state, the lane goes on
        _STATE = {"error": f"{type(e).__name__}: {e}"}
    return _STATE


def state() -> dict[str, Any] | None:
    """What `load()` did in this process (None before it ran)."""
    return _STATE
