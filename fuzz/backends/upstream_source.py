"""The fingerprint a speedup checks before it replaces an upstream function: a version
bump that changes the function's source leaves upstream's in place (both speedup modules,
fuzz/backends/exir/speedups.py and fuzz/backends/thunder_speedups.py)."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable


def source_digest(*functions: Callable) -> str:
    """sha256 (first 16 hex digits) of the functions' sources, concatenated in order."""
    text = "".join(inspect.getsource(f) for f in functions)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
