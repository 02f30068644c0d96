"""Running a repro script as its reader will (`python -I repro.py`, from its own folder)
and reading what happened.

An outcome is one of:

  reproduces   it exited 1 on the problem (an assertion, or the stack raising where eager
               returns) or the stack killed the process (a signal)
  ok           exit 0: every check passed
  unsupported  the stack declined the program (Thunder's "not supported" errors, an
               operator the ExecuTorch runtime has no kernel for): not the problem
  unavailable  the script needs a device this machine lacks (exit 2)
  error        the script itself is wrong (NameError, SyntaxError, an import): a bug of
               the exporter's, never a verdict
  timeout      it ran past the limit

`actual` is what a maintainer needs to see: what the script printed, the ExecuTorch
runtime's own log lines that say why it failed, and the final traceback; not the
warnings and library-load noise of the installed packages.
"""

from __future__ import annotations

import dataclasses
import re
import signal
import subprocess
import sys
from pathlib import Path

_SCRIPT_ERRORS = re.compile(
    r"^(NameError|SyntaxError|IndentationError|ImportError|ModuleNotFoundError|UnboundLocalError)\b"
)
# A stack's words for a program it declines (not the problem a script shows): Thunder's
# (fuzz/backends/thunder/lane.py UNSUPPORTED), and ExecuTorch's for what the EXIR lane
# skips (fuzz/backends/exir/pipeline.py _UNSUPPORTED) or an operator the runtime has no
# kernel for.
DECLINED = {
    "thunder": re.compile(
        r"NotImplementedError|not supported|[Uu]nsupported|is not registered|"
        r"manual registration|DynamicOutputShapeException|Expected pred to be bool|"
        r"only consists of tensor leaves"
    ),
    "exir": re.compile(r"Missing out variants|Unsupported control flow operator"),
}
DECLINED["xnnpack"] = DECLINED["exir"]
DECLINED["thunderfx"] = DECLINED["thunderprims"] = DECLINED["thunder"]
# ... and the runtime's log line for a program it has no kernel for (its error says 0x14).
DECLINED_LOG = {"thunder": None, "exir": re.compile(r"\] Missing operator: ")}
DECLINED_LOG["xnnpack"] = DECLINED_LOG["exir"]
DECLINED_LOG["thunderfx"] = DECLINED_LOG["thunderprims"] = None
_NOT_DECLINED = re.compile(r"more than one element of the written-to tensor")
_RUNTIME_LOG = re.compile(r"^\[(?!cpuinfo|operator_registry)[\w./-]+\.(?:cpp|h|hpp):\d+\]")
# ... of which the lines that say what went wrong (not the kernel listings and progress).
_RUNTIME_WHY = re.compile(r"(?i)check failed|missing|error|fail|invalid|mismatch|expected|overflow")
_CALL_MARK = re.compile(r"^call (\d+):", re.M)
_SITE = re.compile(r'File "[^"]*?(site-packages|dist-packages)/')


@dataclasses.dataclass
class Run:
    outcome: str
    status: int  # exit status; negative: killed by that signal
    stdout: str
    stderr: str
    actual: str = ""
    last_call: int | None = None  # the last `call N:` a loop printed

    @property
    def reproduces(self) -> bool:
        return self.outcome == "reproduces"


def _traceback(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last)")]
    return lines[starts[-1] :] if starts else []


def _final_error(stderr: str) -> str:
    tb = _traceback(stderr)
    tail = [ln for ln in tb if ln and not ln.startswith(" ")]
    return tail[-1] if tail else ""


def clean_output(stdout: str, stderr: str, folder: Path | None = None) -> str:
    """stdout, the runtime's log lines, and the last traceback, paths shortened."""
    out = [ln.rstrip() for ln in stdout.splitlines()]
    out += [
        ln.rstrip()
        for ln in stderr.splitlines()
        if _RUNTIME_LOG.match(ln) and _RUNTIME_WHY.search(ln)
    ]
    out += _traceback(stderr)
    text = "\n".join(out).strip("\n")
    text = _SITE.sub(r'File "\1/', text)
    if folder is not None:
        text = text.replace(str(folder.resolve()) + "/", "")
    return text


def _at_import(tb: list[str]) -> bool:
    """Whether the script's own last frame in traceback `tb` is an import line."""
    ours = [i for i, ln in enumerate(tb) if re.match(r'\s*File "(?:.*/)?repro\.py"', ln)]
    if not ours or ours[-1] + 1 >= len(tb):
        return False
    return tb[ours[-1] + 1].strip().startswith(("import ", "from "))


def classify(status: int, stdout: str, stderr: str, lane: str) -> str:
    if status == 0:
        return "ok"
    if status < 0:
        return "reproduces"  # the stack killed the process
    if status == 2:
        return "unavailable"
    error = _final_error(stderr)
    frames = [ln for ln in _traceback(stderr) if ln.lstrip().startswith('File "')]
    ours = bool(frames) and re.match(r'File "(?:.*/)?repro\.py"', frames[-1].lstrip()) is not None
    if _SCRIPT_ERRORS.match(error) and (ours or not frames):
        return "error"  # raised by the script's own line, not inside the stack
    if _at_import(_traceback(stderr)):
        return "error"  # the stack did not import: the script never ran the program
    everything = stderr + stdout
    logged = DECLINED_LOG[lane]
    declined = DECLINED[lane].search(error or everything) or (logged and logged.search(stderr))
    if declined and not _NOT_DECLINED.search(everything):
        return "unsupported"
    return "reproduces"


def run_script(path: Path, lane: str, timeout: float = 600) -> Run:
    try:
        done = subprocess.run(
            [sys.executable, "-I", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Run("timeout", -1, out, "", f"(still running after {timeout:.0f} s)")
    outcome = classify(done.returncode, done.stdout, done.stderr, lane)
    actual = clean_output(done.stdout, done.stderr, path.parent)
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        actual += f"\n(the process was killed by {name})"
    marks = _CALL_MARK.findall(done.stdout)
    return Run(
        outcome,
        done.returncode,
        done.stdout,
        done.stderr,
        actual.strip("\n"),
        int(marks[-1]) if marks else None,
    )
