"""Fixes for the upstream bugs this harness was built around, as opt-in monkeypatches.

    import fixes
    fixes.apply("on")          # or a list of names, or "off"
    fixes.active()             # {"thunder-symbolic-cache": "applied", ...}
    fixes.remove(["thunder-symbolic-cache"])      # undo it exactly
    with fixes.applied("off"):                    # stock packages inside the block,
        ...                                       # the previous state restored after it
    fixes.state_for("executorch-specprop").state  # "applies" | "upstream" | "absent" | "uncovered"

One switch everywhere: the FUZZ_FIXES environment variable, `--fixes` on the CLI and on
pytest. Each fix lives in its own module and registers a `Fix` describing the upstream
bug, the versions it covers and how it is installed and uninstalled. This package is the
lower layer: it never imports the harness (`fuzz`), and importing it does not import
Thunder or ExecuTorch (each fix imports its package when it is installed).
"""

import fixes.executorch_specprop  # noqa: F401
import fixes.thunder_symbolic_cache  # noqa: F401
from fixes._registry import (  # noqa: F401
    ENV_VAR,
    STATES,
    Fix,
    FixError,
    FixState,
    FixStatus,
    active,
    all_fixes,
    applied,
    apply,
    package_versions,
    parse_switch,
    register,
    remove,
    state_for,
)
