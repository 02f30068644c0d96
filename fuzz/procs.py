"""Running harness work in child processes: their environment, a time-limited run, and
naming how (and where) a process ended.

Used by the campaign's local engine (one worker process per slot), by crash confirmation
and by `replay --isolate`: a backend that kills or hangs its process must never take the
caller down.

Children run with Python's faulthandler on (`PYTHONFAULTHANDLER=1` in `child_env`): on a
fatal signal (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL) it prints the Python stack of the
crashing thread to stderr. `crash_site` reads that dump back: the innermost frames, each
as `path:function` (the path relative to site-packages or the repository, no line numbers,
no addresses; a frame of the program itself is `program:<op of that line>`), so that two
different aborts in one night are two buckets (fuzz.buckets), not one per signal.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# A child that has not said RUNNING after this long (imports included) is a hang.
STARTUP_LIMIT_S = 180.0


def child_env() -> dict[str, str]:
    """The environment of a child process: the repository and the cwd importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), os.getcwd()] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"  # a fatal signal prints the Python stack (crash_site)
    return env


# The ExecuTorch runtime's log of the call a child was running when it died: the child
# writes it to the file $FUZZ_RUNTIME_LOG names (fuzz/backends/exir/runtime.py), the parent
# reads its last lines back (`runtime_log_tail`): an abort's only message ("[reduce_util.h:
# 494] In function map_reduce_over_dim<...argmax_out...>") is in that log.
RUNTIME_LOG_ENV = "FUZZ_RUNTIME_LOG"
LOG_LINE = re.compile(r"^\[[\w.]+:\d+\] .*$", re.M)  # "[op_embedding.cpp:52] Check failed ..."
LOG_LINES = 3  # the last log lines a failure's message keeps, each cut to 160
LOG_LINE_CHARS = 160
# Lines that say nothing of the failure: cpuinfo's probing at the first run, and the
# operator's argument types listed after "KernelCall failed".
LOG_NOISE = re.compile(r"^\[(?:cpuinfo_utils\.cpp:\d+\]|method\.cpp:\d+\] arg \d+ with type id)")


def log_tail(logged: str) -> str | None:
    """The runtime log's last meaningful lines, "a; b; c" (None when there are none)."""
    lines = [line for line in LOG_LINE.findall(logged) if not LOG_NOISE.match(line)]
    return "; ".join(line[:LOG_LINE_CHARS] for line in lines[-LOG_LINES:]) or None


def new_runtime_log() -> str:
    """A fresh file for a child's runtime log ($FUZZ_RUNTIME_LOG); the caller removes it
    with `runtime_log_tail`."""
    fd, path = tempfile.mkstemp(prefix="fuzz-runtime-log-", suffix=".txt")
    os.close(fd)
    return path


def runtime_log_tail(path: str) -> str | None:
    """The last lines of the runtime log a child left at `path` (then removed)."""
    try:
        with open(path, "rb") as f:
            return log_tail(f.read().decode(errors="replace"))
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


_OUTCOME = "OUTCOME "


def outcome_command(
    path: str | Path,
    lane: str,
    device: str,
    switch: str,
    plugins: Sequence[str] = (),
    *,
    seed: int | None = None,
    corpus: Sequence[str | Path] = (),
    speedups: str | None = None,
) -> list[str]:
    """`python -m fuzz.outcome` on one case file, lane and device (what it prints:
    `outcome_printed`); every caller that runs a case in a fresh process builds it here."""
    cmd = [sys.executable, "-m", "fuzz.outcome", str(path), lane, device, "--fixes", switch]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if speedups is not None:
        cmd += ["--speedups", speedups]
    for p in plugins:
        cmd += ["--plugin", p]
    for c in corpus:
        cmd += ["--corpus", str(c)]
    return cmd


def outcome_printed(printed: str) -> dict[str, Any] | None:
    """The JSON of the OUTCOME line fuzz.outcome printed (None: it printed none)."""
    for line in reversed(printed.splitlines()):
        if line.startswith(_OUTCOME):
            try:
                return json.loads(line[len(_OUTCOME) :])
            except ValueError:
                return None
    return None


def run_isolated(
    cmd: list[str],
    env: dict,
    timeout: float,
    output: list | None = None,
    errors: list | None = None,
) -> tuple[int | None, bool]:
    """Run `cmd` in a fresh process: (exit status, whether it hung). The time limit counts
    from when the process prints RUNNING (its imports excluded). Its stdout is appended to
    `output` when given, the tail of its stderr (faulthandler's dump: `crash_site`) to
    `errors` when given (else stderr is dropped)."""
    err = tempfile.TemporaryFile() if errors is not None else None
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=err if err is not None else subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    limit = time.time() + STARTUP_LIMIT_S
    buf, running = b"", False
    try:
        while True:
            if not sel.select(timeout=max(0.0, limit - time.time())):
                kill(proc)
                proc.wait()
                return None, True
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                if output is not None:
                    output.append(buf.decode(errors="replace"))
                return proc.wait(), False
            buf += chunk
            if not running and b"RUNNING\n" in buf:
                running = True
                limit = time.time() + timeout
    finally:
        sel.close()
        proc.stdout.close()
        if err is not None:
            errors.append(_tail_of(err))
            err.close()


def _tail_of(f, limit: int = 1 << 16) -> str:
    size = f.seek(0, os.SEEK_END)
    f.seek(max(0, size - limit))
    return f.read().decode(errors="replace")


def signal_name(rc: int | None) -> str:
    """How a process ended: "SIGSEGV", "exit 3", "no exit status"."""
    if rc is None:
        return "no exit status"
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    return f"exit {rc}"


def kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Signal a child's whole process group (children are started in their own session)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


def tail(path: Path | None, n: int = 15) -> str:
    """The last `n` lines of a log file ("" when it cannot be read)."""
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except (OSError, TypeError):
        return ""


# -- where a process died (faulthandler's dump) ------------------------------------------

_FRAME = re.compile(r'^\s+File "(?P<path>.*)", line (?P<line>\d+) in (?P<func>.+?)\s*$')
_THREAD_HEAD = re.compile(r"^(Current thread|Thread) 0x[0-9a-fA-F]+|^Stack \(most recent")
_PACKAGES = re.compile(r".*[/\\](?:site|dist)-packages[/\\]")
_STDLIB = re.compile(r".*[/\\]lib[/\\]python\d+\.\d+[/\\]")
_SUFFIX_DIGITS = re.compile(r"_?\d+$")
_DIGITS = re.compile(r"\d+")


def fatal_frames(text: str) -> list[tuple[str, int, str]]:
    """The crashing thread's frames, innermost first, as (path, line, function), from the
    last faulthandler dump in `text` ("Fatal Python error: ..."); [] when there is none."""
    start = (text or "").rfind("Fatal Python error")
    if start < 0:
        return []
    frames: list[tuple[str, int, str]] = []
    current = False
    for line in text[start:].splitlines():
        if _THREAD_HEAD.match(line):
            if frames:  # the crashing thread's block is over
                break
            current = not line.startswith("Thread ")
            continue
        m = _FRAME.match(line)
        if m and current:
            frames.append((m["path"], int(m["line"]), m["func"]))
        elif frames and not line.strip():
            break
    return frames


def _program_op(source: str, line: int) -> str:
    """The op a program's line calls: `torch.amax` for `v1 = torch.amax(x0, 1)`, `.sum`
    for `v2 = v1.sum()` (a method of a local value), "?" when the line names none."""
    lines = (source or "").splitlines()
    if not 0 < line <= len(lines):
        return "?"
    text = lines[line - 1].strip().rstrip(":")
    for head in ("if ", "elif ", "while ", "for "):
        if text.startswith(head):
            text = text[len(head) :]
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return "?"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts, f = [], node.func
            while isinstance(f, ast.Attribute):
                parts.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name) and f.id in _imported(source):
                parts.append(f.id)
            elif isinstance(f, ast.Name) and not parts:
                parts.append(f.id)  # a builtin or helper: min, int, ...
            else:
                parts.append("")
            return ".".join(reversed(parts))
    return "?"


def _imported(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {"torch", "math", "operator"}
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def frame_name(path: str, func: str, line: int = 0, source: str | None = None) -> str:
    """One frame as `path:function`: a path inside site-packages or the standard library
    relative to it, one in this repository relative to it; the program under test (a
    generated case, `<case ...>`; a crash confirmation's scratch copy; any file outside
    those) is `program`, with the op of its line when `source` is the program's."""
    func = _SUFFIX_DIGITS.sub("", func) or func  # computation_12 -> computation
    root = str(ROOT) + os.sep
    if _PACKAGES.match(path):
        return f"{_PACKAGES.sub('', path)}:{func}"
    if _STDLIB.match(path):
        return f"{_STDLIB.sub('', path)}:{func}"
    scratch = Path(path).parent.name == "scratch" and Path(path).name.startswith("confirm-")
    if path.startswith(root) and not scratch:
        return f"{path[len(root) :]}:{func}"
    if path.startswith("<") and not path.startswith(("<case ", "<string>")):
        return f"{_DIGITS.sub('N', path)}:{func}"  # <frozen ...>, a generated trace
    if func == "program" and source is not None:
        return f"program:{_program_op(source, line)}"
    return f"program:{func}"


def crash_site(text: str, source: str | None = None, depth: int = 3) -> dict[str, object]:
    """Where a process died, from faulthandler's dump in its stderr `text`: {"at": the
    innermost frame (`frame_name`), "frames": the `depth` innermost} ({} when `text`
    holds no dump, e.g. a hang killed with SIGKILL)."""
    frames = fatal_frames(text)
    if not frames:
        return {}
    names = [frame_name(path, func, line, source) for path, line, func in frames[:depth]]
    return {"at": names[0], "frames": names}
