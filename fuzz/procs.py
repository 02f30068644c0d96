"""Running harness work in child processes: their environment, a time-limited run, and
naming how a process ended.

Used by the campaign's local engine (one worker process per slot), by crash confirmation
and by `replay --isolate`: a backend that kills or hangs its process must never take the
caller down.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from pathlib import Path

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
    return env


def run_isolated(
    cmd: list[str], env: dict, timeout: float, output: list | None = None
) -> tuple[int | None, bool]:
    """Run `cmd` in a fresh process: (exit status, whether it hung). The time limit counts
    from when the process prints RUNNING (its imports excluded). Its stdout is appended to
    `output` when given."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True
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
