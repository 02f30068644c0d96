"""The harness's own exceptions (one base, `FuzzError`) and one way to put any exception into
words: `TypeName: message`, the message cut to a limit.

Every exception class the harness defines derives from `FuzzError`, next to the built-in
base it always had (`CaseError(FuzzError)`, `ProtocolError(FuzzError, ValueError)`), so
`except FuzzError` tells the harness's own failures from a backend's while every handler
that caught one before still does. (`fixes/` defines its own, `fixes.FixError`: fixes never
import the harness. `fuzz.campaign.rounds.StopRound` stays a KeyboardInterrupt and no
FuzzError: Hypothesis must not catch it as an Exception.)

Records, reports and case files all quote exceptions; with one formatter they read alike
and a crash fingerprint sees the same text wherever it was made.
"""

from __future__ import annotations

DEFAULT_LIMIT = 500


class FuzzError(Exception):
    """Base of the harness's own exceptions (see the module docstring)."""


def error_text(e: BaseException, limit: int | None = DEFAULT_LIMIT) -> str:
    """`"ValueError: bad size"`; the message part is cut to `limit` characters (None: whole)."""
    message = str(e)
    if limit is not None and len(message) > limit:
        message = message[:limit]
    return f"{type(e).__name__}: {message}"
