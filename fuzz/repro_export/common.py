"""Template text shared by the repro scripts of both lanes: the header, the value
comparison with the harness's tolerances, and the main entry point.

Templates are plain strings with `@@NAME@@` markers (the scripts are full of braces, so no
str.format). Everything here ends up in a script an upstream maintainer reads: it
imports only torch, the stack under test and the standard library.
"""

from __future__ import annotations

# The comparison of one leaf, as fuzz.oracles.results.value_mismatch does it; the
# tolerance table is rendered from fuzz.oracles.results.TOLERANCES (`tolerance_lines`).
COMPARE = '''
# Floats are compared with these (rtol, atol): compilers may reorder reductions and fuse
# ops, so bit equality is not expected. Integers and bools must be equal; NaN equals NaN.
TOLERANCES = {
@@TOLERANCES@@
}


def mismatch(expected, actual):
    """Why `actual` differs from `expected` (one tensor or number), or None."""
    if isinstance(expected, torch.Tensor) != isinstance(actual, torch.Tensor):
        return f"type {type(actual).__name__}, expected {type(expected).__name__}"
    if not isinstance(expected, torch.Tensor):
        if isinstance(expected, float) or isinstance(actual, float):
            same = torch.isclose(
                torch.tensor(float(actual)),
                torch.tensor(float(expected)),
                rtol=1e-6,
                atol=1e-7,
                equal_nan=True,
            )
            return None if same else f"value {actual!r}, expected {expected!r}"
        return None if expected == actual else f"value {actual!r}, expected {expected!r}"
    if expected.dtype != actual.dtype:
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if expected.shape != actual.shape:
        return f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    if expected.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[expected.dtype]
        close = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        if not bool(close.all()):
            at = tuple((~close).nonzero()[0].tolist())
            got, want = actual[at].item(), expected[at].item()
            return f"values differ at {list(at)}: {got!r}, expected {want!r}"
        return None
    return None if torch.equal(actual, expected) else "values differ"


def leaves(value):
    """The tensors and numbers in a (nested) call or result, in order."""
    return pytree.tree_leaves(value)


def error_text(e):
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0][:300] if lines else ''}"
'''

# The verdict: DIVERGES (exit 1), OK (0), UNSUPPORTED (2), or the check itself failed (3).
_REPORT = """

def report(run):
    try:
        problems = run()
    except Exception:  # the script itself failed: not a finding either way
        traceback.print_exc()
        print("ERROR: the check itself raised (above)")
        return 3
    if isinstance(problems, str):  # the check cannot be made here
        print(problems)
        return 2
    for problem in problems:
        print(f"DIVERGES: {problem}")
    if not problems:
        print(f"OK: {EXPECTED}")
    return 1 if problems else 0
"""

MAIN = (
    _REPORT
    + """

if __name__ == "__main__":
    sys.exit(report(check))
"""
)

# A case that kills its process: the check runs in a child process, and a child killed by
# a signal is the divergence.
MAIN_ISOLATED = (
    _REPORT
    + """

def main():
    if sys.argv[1:] == ["--child"]:
        return report(check)
    # The runtime may kill the process that runs this program: run it in a child.
    import signal
    import subprocess

    child = subprocess.run([sys.executable, "-I", __file__, "--child"])
    if child.returncode < 0:
        name = signal.Signals(-child.returncode).name
        print(f"DIVERGES: the process died ({name}); the last step it printed is where")
        return 1
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
"""
)

# A script whose divergence needs more than the stack's public pipeline to check.
UNSUPPORTED = """

def check():
    return "UNSUPPORTED: " + WHY_UNSUPPORTED
"""


def tolerance_lines(tolerances: dict) -> str:
    """The TOLERANCES literal of a script, from fuzz.oracles.results.TOLERANCES."""
    return "\n".join(
        f"    torch.{str(dtype).removeprefix('torch.')}: ({rtol!r}, {atol!r}),"
        for dtype, (rtol, atol) in tolerances.items()
    )
