"""The versions block of an issue, as torch's `collect_env` prints it (the trackers ask for
its output), kept to what a reader of these issues needs: torch, the OS and architecture,
Python, the device, and the stack's own package."""

from __future__ import annotations

import functools
import importlib.metadata

# collect_env's lines worth keeping, by their label.
_KEEP = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "OS",
    "Libc version",
    "Python version",
    "Python platform",
    "Is CUDA available",
    "GPU models and configuration",
)
PACKAGES = {
    "exir": ("torch", "executorch"),
    "xnnpack": ("torch", "executorch"),
    "thunder": ("torch", "lightning-thunder"),
    "thunderfx": ("torch", "lightning-thunder"),
    "thunderprims": ("torch", "lightning-thunder"),
}


@functools.lru_cache(maxsize=1)
def _collected() -> str:
    from torch.utils import collect_env

    return collect_env.pretty_str(collect_env.get_env_info())


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions_block(lane: str) -> str:
    """collect_env's lines for the platform, then the lane's packages as pip has them."""
    kept = [
        line
        for line in _collected().splitlines()
        if any(line.startswith(label + ":") for label in _KEEP)
    ]
    kept.append("")
    kept.append("Versions of relevant libraries:")
    kept += [f"[pip3] {p}=={version(p)}" for p in PACKAGES[lane]]
    return "\n".join(kept)


def pins(lane: str) -> dict[str, str]:
    """{package: version} of the lane's stack, for the index and the JSON record."""
    return {p: version(p) for p in PACKAGES[lane]}


def field(name: str) -> str:
    """One collect_env field's value ("OS" -> "Debian GNU/Linux 12 (bookworm) (x86_64)")."""
    for line in _collected().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return "unknown"
