"""One way to put an exception into words: `TypeName: message`, the message cut to a limit.

Records, reports and case files all quote exceptions; with one formatter they read alike
and a crash fingerprint sees the same text wherever it was made.
"""

from __future__ import annotations

DEFAULT_LIMIT = 500


def error_text(e: BaseException, limit: int | None = DEFAULT_LIMIT) -> str:
    """`"ValueError: bad size"`; the message part is cut to `limit` characters (None: whole)."""
    message = str(e)
    if limit is not None and len(message) > limit:
        message = message[:limit]
    return f"{type(e).__name__}: {message}"
