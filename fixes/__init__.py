"""Fixes for the upstream bugs this harness was built around, as opt-in monkeypatches.

    import fixes
    fixes.apply("on")          # or a list of names, or "off"
    fixes.active()             # {"thunder-symbolic-cache": "applied", ...}

One switch everywhere: the FUZZ_FIXES environment variable, `--fixes` on the CLI and on
pytest. Each fix lives in its own module and registers a `Fix` describing the upstream
bug, the versions it covers and how it is installed.
"""

import fixes.executorch_specprop  # noqa: F401
import fixes.thunder_symbolic_cache  # noqa: F401
from fixes._registry import (  # noqa: F401
    ENV_VAR,
    Fix,
    FixError,
    FixStatus,
    active,
    all_fixes,
    apply,
    package_versions,
    parse_switch,
    register,
)
